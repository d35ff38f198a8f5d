// The class screens (teaching a class, a pupil joining one, a class table's
// game again from the results: /?replay=GAME_ID) are a bundle of
// their own, js/classroom.js, fetched the first time a page needs them: most
// visitors never teach a class, and the first load keeps to its budget
// (tests/web/e2e/size.mjs). That bundle shares no module with this one; what
// it needs of the page (the session, the connection, moving between
// screens and rooms, the rules picker) is handed to it here.

import { session } from './session.js';
import { seatStore } from './connection.js';
import { confirmDialog, replayRow, showScreen } from './screens.js';
import { enterRequest, goHome } from './navigation.js';
import { chosenRules, loadAdvanced, placeRulesPicker, showRulesError } from './rules-picker.js';
import { PRESET_LINES, presetTitle } from './rules.js';
import { cardFace, rankPlural } from './cards.js';
import { buildReplay, downloadTranscript } from './replay.js';
import { clause } from './narrate.js';

let loading = null;

export function classroom() {
  loading ??= import('./classroom.js').then((module) => {
    module.init({ session, seatStore, showScreen, confirmDialog, enterRequest, goHome, chosenRules, loadAdvanced,
      placeRulesPicker, showRulesError, presetTitle, PRESET_LINES, cardFace, buildReplay, downloadTranscript, clause,
      rankPlural, replayRow });
    return module;
  }, (error) => { loading = null; throw error; });
  return loading;
}

// Where a page was sent by its address: /?event=CODE (a pupil's link),
// /?teach=CODE (the teacher's console) or /?replay=GAME_ID (a finished game
// from a class's results), read before app.js tidies the address.
export function classEntry() {
  const q = new URLSearchParams(location.search);
  const code = (name) => q.get(name)?.trim().toUpperCase().match(/^[A-Z0-9]{6}$/)?.[0] ?? null;
  const replay = q.get('replay');
  return { event: code('event'), teach: code('teach'), watch: q.has('watch'),
    replay: replay && /^[A-Za-z0-9_=-]{1,200}$/.test(replay) ? replay : null };
}
