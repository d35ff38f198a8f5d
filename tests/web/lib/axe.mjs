// axe-core (npm, pinned in package-lock.json) on the page as it is now: no
// serious or critical violation is allowed. label-content-name-mismatch is
// one of axe's "experimental" rules, so it is switched on by name.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const axeScreens = new Set();

export async function checkAxe(page, label) {
  // Evaluated by the driver, not added as an inline <script>, which the
  // page's Content-Security-Policy (script-src 'self') refuses.
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(source);
  const result = await page.evaluate(() => window.axe.run(document, {
    rules: { 'label-content-name-mismatch': { enabled: true } },
    resultTypes: ['violations'],
  }));
  const bad = result.violations.filter((v) => ['serious', 'critical'].includes(v.impact));
  axeScreens.add(label);
  if (bad.length) {
    const lines = bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n      ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 3).join(' ')}`).join('\n      ')}`);
    throw new Error(`axe-core on "${label}": ${bad.length} serious or critical violations\n    ${lines.join('\n    ')}`);
  }
  return result.violations.length;
}
