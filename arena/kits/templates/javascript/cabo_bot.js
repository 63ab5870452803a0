// cabo_bot.js: the protocol loop of a Cabo Arena bot (protocol v1), plain Node, no packages.
//
// run(Policy) reads one JSON message per line on stdin and answers on stdout:
// - hello: makes `new Policy(hello)` (a fresh one for every match) and answers "ready";
// - act: calls policy.act(state, legal, events) and answers with the index it returns;
//   if act throws or returns something that is not a legal index, the error goes to
//   stderr and index 0 (always legal) is sent, so one bug does not become a fault;
// - update, over: calls policy.update(events) / policy.over(result) if the policy has them;
// - anything else: ignored, as the protocol requires.
// After "over" a new "hello" may come on the same process: tournaments reuse processes.
// The loop ends when the arena closes stdin.
'use strict';

const readline = require('readline');

// Logs go to stderr: stdout carries only protocol replies.
function log(...parts) {
  process.stderr.write(parts.join(' ') + '\n');
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
      if (policy) {
        try {
          index = chooseIndex(policy.act(message.state || {}, legal, message.events || []), legal);
        } catch (err) {
          log('cabo_bot: act failed, sending index 0:', err && err.stack ? err.stack : err);
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

module.exports = { run, log, unseenCards };
