// __BOT_NAME__: a Cabo Arena bot (protocol v1), made from the arena's JavaScript starter kit.
//
// The arena starts this file (`run` in bot.yaml) and talks to it in JSON lines on stdin
// and stdout. cabo_bot.js, beside this file, does all of that talking: this file only
// decides. Each decision gets
// - state: everything this seat may know now (docs/protocol.md, section 5),
// - legal: the actions it may choose from (section 6), never empty,
// - events: what happened since the last decision (section 7),
// and returns the index of one entry of legal. Keep decisions fast (move_ms, 1 s by
// default) and log with cabo.log (stderr): stdout is the protocol's.
'use strict';

const cabo = require('./cabo_bot.js'); // the helper beside this file, by a relative path

const CABO_AT = 6; // call Cabo when the hand is believed to be worth at most this much
const TAKE_AT = 3; // take the top of the discard pile when it is worth at most this much
const LAST_TURN = 40; // call Cabo anyway once a round has had this many turns, so that rounds end

// One match: a new Policy is made for every hello, so nothing leaks between matches.
class Policy {
  constructor(hello) {
    this.name = '__BOT_NAME__';
    this.seat = hello.seat;
    this.values = hello.values; // card code -> points: depends on the preset and its options
  }

  act(state, legal, events) {
    const kinds = legal.map((action) => action.do);
    const worth = this.worth(state);
    const slots = Object.keys(worth).map(Number);
    if (state.phase === 'turn') {
      const total = slots.reduce((sum, slot) => sum + worth[slot], 0);
      if (kinds.includes('cabo') && (total <= CABO_AT || state.turn >= LAST_TURN)) return kinds.indexOf('cabo');
      const top = state.discard.length ? state.discard[state.discard.length - 1] : null;
      const worst = Math.max(...slots.map((slot) => worth[slot]));
      if (kinds.includes('take') && top !== null && this.values[top] <= Math.min(TAKE_AT, worst - 1)) {
        return kinds.indexOf('take');
      }
      return kinds.includes('draw') ? kinds.indexOf('draw') : 0;
    }
    if (state.phase === 'drawn') {
      const held = this.values[state.held];
      let best = -1;
      legal.forEach((action, index) => {
        if (action.do === 'swap' && (best < 0 || worth[action.slot] > worth[legal[best].slot])) best = index;
      });
      if (best >= 0 && worth[legal[best].slot] > held) return best; // replace the card believed to be worst
      const peek = legal.findIndex((a) => a.do === 'peek' && state.hands[this.seat][a.slot] === '?');
      if (peek >= 0) return peek; // a power: look at one of our unknown cards
      if (kinds.includes('discard')) return kinds.indexOf('discard');
    }
    // look_initial, claim (index 0 is "pass"), rey, or nothing better: the first legal action
    return 0;
  }

  // Slot -> the value of our card there: its value if we know it, else the mean of the unseen cards.
  worth(state) {
    const unseen = cabo.unseenCards(state, Object.keys(this.values));
    const guess = unseen.length ? unseen.reduce((sum, code) => sum + this.values[code], 0) / unseen.length : 5;
    const out = {};
    state.hands[this.seat].forEach((card, slot) => {
      if (card !== null) out[slot] = card === '?' ? guess : this.values[card];
    });
    return out;
  }
}

cabo.run(Policy);
