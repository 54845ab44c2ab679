// Turns one suite run (one leg at one revision) into the harness's report and verdict.
//
//   node report.cjs LEG REV RESULTS_DIR SUITE_LOG BASELINE_YML
//
// LEG is `server` or `client`. The scenario lists come from the suite's own frozen
// requirement set (requirements/REV.yaml in the installed package): `LEG:` is scored,
// `not_scored:` entries of this leg are reported but never affect the verdict.
// A scenario passes when none of its checks has status FAILURE; a scenario that left no
// checks.json (the suite could not run it) fails. BASELINE_YML uses the suite's
// --expected-failures format: `LEG:` lists `scenario` or `scenario:check-id` entries.
//
// Prints one line per scenario and the summary lines; exits 0 iff every scored failure is
// covered by the baseline and no baseline entry is stale (now passing) or unknown.
'use strict';
const fs = require('fs');
const path = require('path');
const YAML = require('yaml'); // found through NODE_PATH: the suite's own dependency

const [leg, rev, resultsDir, suiteLog, baselineFile] = process.argv.slice(2);
const set = `${leg}-${rev}`;
const suiteRoot = path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json'));

const requirements = YAML.parse(fs.readFileSync(path.join(suiteRoot, 'requirements', `${rev}.yaml`), 'utf8'));
const scored = requirements[leg] ?? [];
const unscored = (requirements.not_scored ?? []).filter((e) => e.leg === leg);

// Baseline: whole-scenario entries, and per-check entries grouped by scenario.
const baseline = fs.existsSync(baselineFile) ? (YAML.parse(fs.readFileSync(baselineFile, 'utf8')) ?? {}) : {};
const expectedScenarios = new Set();
const expectedChecks = new Map();
for (const entry of baseline[leg] ?? []) {
  const [scenario, checkId] = String(entry).split(/:(.*)/s);
  if (checkId) expectedChecks.set(scenario, new Set([...(expectedChecks.get(scenario) ?? []), checkId]));
  else expectedScenarios.add(scenario);
}

// Results: RESULTS_DIR/[server-]<scenario>-<ISO timestamp>/checks.json (client scenarios
// such as auth/x nest one level deeper). Sorting keeps the newest run of a scenario.
const checksByScenario = new Map();
for (const file of fs.globSync('**/checks.json', { cwd: resultsDir }).sort()) {
  let scenario = path.dirname(file).replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
  if (leg === 'server') scenario = scenario.replace(/^server-/, '');
  checksByScenario.set(scenario, JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8')));
}
const log = fs.existsSync(suiteLog) ? fs.readFileSync(suiteLog, 'utf8') : '';

function oneLine(text, max = 160) {
  const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// The FAILURE checks of a scenario, or one synthetic failure when it left no results.
function failuresOf(scenario) {
  const checks = checksByScenario.get(scenario);
  if (checks) return checks.filter((c) => c.status === 'FAILURE');
  const escaped = scenario.replace(/[.*+?^$()|[\]{}\\/]/g, '\\$&');
  const crash = log.match(new RegExp(`Failed to run scenario ${escaped}: (.*)`));
  return [{ id: 'no-results', errorMessage: crash ? crash[1] : 'the suite wrote no checks.json (see the suite log)' }];
}

// The first failing check in full, then how many other check ids failed.
function describe(failures) {
  const [first] = failures;
  const others = new Set(failures.map((c) => c.id).filter((id) => id !== first.id)).size;
  return `${first.id}: ${oneLine(first.errorMessage || first.description)}${others ? `; +${others} more failing check(s)` : ''}`;
}

const problems = [];
let passed = 0;
let known = 0;
for (const scenario of scored) {
  const failures = failuresOf(scenario);
  const checkEntries = expectedChecks.get(scenario);
  if (failures.length === 0) {
    passed++;
    console.log(`PASS ${set} ${scenario}`);
  } else {
    const covered = expectedScenarios.has(scenario) || failures.every((c) => checkEntries?.has(c.id));
    if (covered) known++;
    else problems.push(`${scenario}: unexpected failure (not in the baseline)`);
    console.log(`FAIL ${set} ${scenario} (${describe(failures)})${covered ? ' [in baseline]' : ' [NOT IN BASELINE]'}`);
  }
  if (expectedScenarios.has(scenario) && failures.length === 0) {
    problems.push(`${scenario}: stale baseline entry (now passes; remove it)`);
  }
  for (const checkId of checkEntries ?? []) {
    if (checksByScenario.has(scenario) && !failures.some((c) => c.id === checkId)) {
      problems.push(`${scenario}:${checkId}: stale baseline entry (check no longer fails; remove it)`);
    }
  }
}
for (const scenario of [...expectedScenarios, ...expectedChecks.keys()]) {
  if (!scored.includes(scenario)) problems.push(`${scenario}: baseline entry names no scored ${set} scenario`);
}

let unscoredPassed = 0;
for (const { scenario, reason } of unscored) {
  const failures = failuresOf(scenario);
  if (failures.length === 0) unscoredPassed++;
  const verdict = failures.length === 0 ? 'PASS' : 'FAIL';
  console.log(`(unscored) ${verdict} ${set} ${scenario} [${reason}]${failures.length ? ` (${describe(failures)})` : ''}`);
}

for (const problem of problems) console.log(`BASELINE ${set} ${problem}`);
// A failure the baseline lists is a known gap, each with its reason in the yml: the
// summary says so, so a green log does not read as a red one.
const unexpected = scored.length - passed - known;
const gaps = known ? `, ${known} known gap(s) listed in the baseline` : '';
console.log(`${set}: ${passed} passed${gaps}, ${unexpected} unexpected failure(s)`);
console.log(`${set} (unscored): ${unscoredPassed} passed, ${unscored.length - unscoredPassed} not passing (informational, not scored)`);
console.log(`${set} baseline: ${problems.length === 0 ? 'OK' : `${problems.length} problem(s)`} (${path.relative(process.cwd(), baselineFile)})`);
process.exit(problems.length === 0 ? 0 : 1);
