// cabo_bot.js: the protocol loop of a Cabo Arena bot (protocol v1), plain Node, no packages.
//
// run(Policy) reads one JSON message per line on stdin and answers on stdout:
// - hello: makes `new Policy(hello)` (a fresh one for every match) and answers "ready";
// - act: calls policy.act(state, legal, events) and answers with the index it returns;
//   if act throws or returns something that is not a legal index (or there is no policy,
//   its constructor threw), the stack goes to stderr, then a line
//   `cabo-bot: fallback: <the error>`, and index 0 (always legal) is sent: the match goes
//   on, and the arena counts the marker line as a `helper_fallback` fault (`arena bot
//   check` reports it), so the bug does not go unseen;
// - update, over: calls policy.update(events) / policy.over(result) if the policy has them;
// - anything else: ignored, as the protocol requires.
// After "over" a new "hello" may come on the same process: tournaments reuse processes.
// The loop ends when the arena closes stdin.
// Requiring this file sends everything console writes to stderr (console.log, info, dir,
// table, ... as console.error already does): a stray debug log cannot corrupt the protocol.
'use strict';

const readline = require('readline');
const util = require('util');

// Start of the stderr line written for every act answered with index 0 because the bot's
// code failed; the arena counts these lines (docs/bots.md, "When your code raises").
const FALLBACK_MARKER = 'cabo-bot: fallback: ';

// Logs go to stderr: stdout carries only protocol replies.
function log(...parts) {
  process.stderr.write(parts.join(' ') + '\n');
}

const toStderr = new console.Console({ stdout: process.stderr, stderr: process.stderr });
for (const method of Object.keys(toStderr)) {
  if (typeof toStderr[method] === 'function') console[method] = toStderr[method];
}

// Log the error's stack down to the bot's own code (the frames below are this loop's and
// Node's), then the marker line naming what failed and the error in one line.
function fallBack(what, err) {
  let stack = err && err.stack ? String(err.stack) : String(err);
  const lines = stack.split('\n');
  const mine = lines.findIndex((line, i) => i > 0 && line.includes(__filename));
  if (mine > 0) stack = lines.slice(0, mine).join('\n');
  const first = err instanceof Error ? `${err.name}: ${err.message}` : `thrown ${util.inspect(err)}`;
  log(stack);
  log(`${FALLBACK_MARKER}${what}: ${first.replace(/\s*\n\s*/g, ' ')}; sent legal index 0`);
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n'); // synchronous on a pipe under Linux
}

// The codes of the deck this seat has not seen anywhere (discard pile, known cards in
// hands, the held card): every face-down card it does not know is one of these.
function unseenCards(state, codes) {
  const seen = new Map();
  const see = (code) => {
    if (code !== null && code !== undefined && code !== '?') seen.set(code, (seen.get(code) || 0) + 1);
  };
  (state.discard || []).forEach(see);
  (state.hands || []).forEach((hand) => hand.forEach(see));
  see(state.held);
  const out = [];
  for (const code of codes) {
    const count = seen.get(code) || 0;
    if (count > 0) seen.set(code, count - 1);
    else out.push(code);
  }
  return out;
}

function chooseIndex(choice, legal) {
  if (Number.isInteger(choice) && choice >= 0 && choice < legal.length) return choice;
  throw new Error(`policy returned ${JSON.stringify(choice)}, not an index into legal (0..${legal.length - 1})`);
}

function run(Policy, name) {
  let policy = null;
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch (err) {
      log('cabo_bot: ignoring a line that is not JSON');
      return;
    }
    if (message === null || typeof message !== 'object') return;
    if (message.type === 'hello') {
      try {
        policy = new Policy(message);
      } catch (err) {
        log('cabo_bot: the policy could not be made:', err && err.stack ? err.stack : err);
        policy = null;
      }
      send({ type: 'ready', name: name || (policy && policy.name) || 'js-bot' });
    } else if (message.type === 'act') {
      const legal = message.legal || [];
      let index = 0;
      if (!policy) {
        log(`${FALLBACK_MARKER}no policy (it could not be made at hello, see above); sent legal index 0`);
      } else {
        try {
          index = chooseIndex(policy.act(message.state || {}, legal, message.events || []), legal);
        } catch (err) {
          fallBack('act', err);
          index = 0;
        }
      }
      send({ type: 'action', id: message.id, index });
    } else if (message.type === 'update') {
      if (policy && typeof policy.update === 'function') policy.update(message.events || []);
    } else if (message.type === 'over') {
      if (policy && typeof policy.over === 'function') policy.over(message.result || {});
      policy = null;
    }
  });
}

module.exports = { run, log, unseenCards, FALLBACK_MARKER };
