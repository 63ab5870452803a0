#!/usr/bin/env node
// js-greedy: a simple greedy Cabo Arena bot (protocol v1), plain Node, no packages.
//
// Unknown cards are estimated by the mean value of the cards not seen yet. It draws
// (or takes a low discard), keeps a drawn card when it beats its worst card, uses
// peek / spy on unknown cards, blind-swaps a known high card away, claims pairs it
// knows (espanola) and calls Cabo when its hand is known and low.
'use strict';

const readline = require('readline');

const NAME = 'js-greedy';
let game = null; // per-match memory, reset by every hello

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n'); // pipes are synchronous on Linux
}

function log(...parts) {
  process.stderr.write(parts.join(' ') + '\n');
}

function newGame(hello) {
  const rules = hello.rules || {};
  const options = rules.options || {};
  return {
    seat: hello.seat | 0,
    values: hello.values || {},
    standard: rules.preset !== 'espanola',
    literal: rules.preset === 'espanola' && options.cabo_bonus === 'literal',
  };
}

function value(code) {
  const v = game.values[code];
  return typeof v === 'number' ? v : 0;
}

const isCard = (c) => c !== null && c !== undefined && c !== '?';

// Mean value of the cards this seat has not seen (discard, known hand cards, held).
function unseenMean(state) {
  const seen = new Map();
  const see = (c) => { if (isCard(c)) seen.set(c, (seen.get(c) || 0) + 1); };
  (state.discard || []).forEach(see);
  (state.hands || []).forEach((hand) => hand.forEach(see));
  see(state.held);
  let sum = 0;
  let n = 0;
  for (const code of Object.keys(game.values)) {
    const k = seen.get(code) || 0;
    if (k > 0) seen.set(code, k - 1);
    else { sum += value(code); n += 1; }
  }
  return n ? sum / n : 0;
}

function find(legal, pred) {
  return legal.findIndex(pred);
}

function decide(state, legal) {
  if (legal.length <= 1) return 0;
  const me = game.seat;
  const hand = (state.hands || [])[me] || [];
  const est = unseenMean(state);
  const discard = state.discard || [];
  const top = discard.length ? discard[discard.length - 1] : null;
  const has = (kind) => legal.findIndex((a) => a.do === kind);
  const slotEst = (c) => (isCard(c) ? value(c) : est);

  // My worst (highest estimated) occupied slot, preferring known cards on ties.
  let worst = -1;
  let worstValue = -Infinity;
  hand.forEach((c, i) => {
    if (c === null) return;
    const v = slotEst(c) + (isCard(c) ? 0.01 : 0);
    if (v > worstValue) { worstValue = v; worst = i; }
  });

  const kinds = new Set(legal.map((a) => a.do));
  if (kinds.has('look_initial')) return 0;

  if (kinds.has('pass')) { // espanola pairs window: only claim known matches
    if (top) {
      for (let i = 0; i < legal.length; i++) {
        const a = legal[i];
        if (a.do === 'claim' && isCard(hand[a.slot]) && hand[a.slot][0] === top[0] && value(hand[a.slot]) > 0) return i;
      }
    }
    return has('pass');
  }

  if (kinds.has('place')) { // espanola Rey: place it over a higher own card
    const looked = state.looked || {};
    const card = ((state.hands || [])[looked.seat] || [])[looked.slot];
    if (looked.seat === me && isCard(card) && value(card) > value(state.held)) return has('place');
    if (looked.seat !== me && isCard(card) && value(state.held) - value(card) >= 6) return has('place');
    return has('discard') >= 0 ? has('discard') : 0;
  }

  if (kinds.has('draw') || kinds.has('take') || kinds.has('cabo')) {
    let known = 0;
    let unknown = 0;
    hand.forEach((c) => { if (c === null) return; if (isCard(c)) known += value(c); else unknown += 1; });
    if (kinds.has('cabo')) {
      const total = known + unknown * est;
      const limit = game.standard ? 10 : 8;
      if (game.literal || (unknown === 0 && total <= limit) || (unknown <= 1 && total <= limit - 2)) return has('cabo');
    }
    if (kinds.has('take') && top && value(top) <= (game.standard ? 3 : 2) && value(top) < worstValue - 2) return has('take');
    if (kinds.has('draw')) return has('draw');
    if (kinds.has('take')) return has('take');
    return 0;
  }

  // Holding a card.
  const held = state.held;
  const w = value(held);
  const swapWorst = find(legal, (a) => a.do === 'swap' && a.slot === worst);
  if (isCard(held) && w < worstValue - 0.5 && swapWorst >= 0) return swapWorst;
  if (!kinds.has('discard')) return swapWorst >= 0 ? swapWorst : 0; // taken card must go in

  const myUnknown = (a) => a.slot !== undefined && hand[a.slot] === '?';
  const theirs = (a) => ((state.hands || [])[a.seat] || [])[a.do === 'blind_swap' ? a.their : a.slot];
  let i = find(legal, (a) => a.do === 'peek' && myUnknown(a));
  if (i >= 0) return i;
  i = find(legal, (a) => a.do === 'spy' && a.seat === me && myUnknown(a));
  if (i >= 0) return i;
  i = find(legal, (a) => a.do === 'spy' && a.seat !== me && theirs(a) === '?');
  if (i >= 0) return i;
  if (kinds.has('blind_swap')) {
    // give away my highest known card if clearly above average, take their lowest (known or unknown)
    let mySlot = -1;
    let myHigh = -Infinity;
    hand.forEach((c, s) => { if (isCard(c) && value(c) > myHigh) { myHigh = value(c); mySlot = s; } });
    if (mySlot >= 0 && myHigh >= est + 2) {
      let best = -1;
      let bestValue = Infinity;
      legal.forEach((a, k) => {
        if (a.do !== 'blind_swap' || a.slot !== mySlot) return;
        const v = slotEst(theirs(a));
        if (v < bestValue) { bestValue = v; best = k; }
      });
      if (best >= 0 && bestValue < myHigh - 1) return best;
    }
  }
  i = find(legal, (a) => a.do === 'look' && a.seat === me && myUnknown(a)); // Rey: look at own unknown
  if (i >= 0) return i;
  return has('discard');
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch (e) { log(NAME + ': ignoring a line that is not JSON'); return; }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return;
  if (msg.type === 'hello') {
    game = newGame(msg);
    send({ type: 'ready', name: NAME });
  } else if (msg.type === 'act') {
    const legal = Array.isArray(msg.legal) ? msg.legal : [];
    let index = 0;
    try {
      if (game) index = decide(msg.state || {}, legal);
    } catch (e) {
      log(NAME + ': ' + (e && e.stack ? e.stack : e));
      index = 0;
    }
    if (!Number.isInteger(index) || index < 0 || index >= legal.length) index = 0;
    send({ type: 'action', id: msg.id, index });
  } else if (msg.type === 'over') {
    game = null;
  }
  // update and unknown types: nothing to do
});
rl.on('close', () => process.exit(0));
