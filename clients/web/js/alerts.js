// Telling a player it is their turn when they look away: the tab's title, a
// short sound (off unless chosen in Settings) and a buzz on phones that allow it.

const kTitle = 'Go Fish';

export class Alerts {
  constructor(settings) {
    this.settings = settings;
    this.audio = null;
    document.title = kTitle;
  }

  yourTurn() {
    document.title = `★ Your turn! · ${kTitle}`;
    if (this.settings.get('sound', '0') === '1') this.beep();
    if (this.settings.get('vibrate', '1') === '1' && navigator.userActivation?.hasBeenActive) navigator.vibrate?.([120, 60, 120]);
  }

  clear() { document.title = kTitle; }

  // Two soft notes, made on the spot (no sound file to download).
  beep() {
    try {
      this.audio ??= new AudioContext();
      const ctx = this.audio;
      for (const [i, freq] of [[0, 660], [1, 880]]) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        const t = ctx.currentTime + i * 0.16;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, t);
        gain.gain.exponentialRampToValueAtTime(0.2, t + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.15);
        osc.connect(gain).connect(ctx.destination);
        osc.start(t);
        osc.stop(t + 0.16);
      }
    } catch { /* no audio here: fine */ }
  }
}
