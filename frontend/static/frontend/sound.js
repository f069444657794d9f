// @ts-check
// Optional sounds (settings: off by default): a deal, a move, a refusal, a win. Made by the
// Web Audio API from a few tones, so the page carries no sound files; the audio context is
// made at the first sound, which always follows a player's gesture (browsers allow no
// sound before one).
import { loadSettings } from "./site.js";

/** Each sound: [frequency Hz, start s, length s] tones, and the wave. */
const SOUNDS = {
  deal: { wave: "triangle", tones: [[520, 0, 0.05], [660, 0.06, 0.05], [780, 0.12, 0.06]] },
  move: { wave: "triangle", tones: [[440, 0, 0.05]] },
  refusal: { wave: "square", tones: [[150, 0, 0.09], [120, 0.1, 0.12]] },
  win: { wave: "triangle", tones: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.12], [1047, 0.36, 0.3]] },
};
const VOLUME = 0.08;

/** @type {AudioContext | null} */
let context = null;

/** Plays `kind` ("deal", "move", "refusal", "win") when the player turned sounds on. */
export function sound(kind) {
  if (!loadSettings().sounds || !window.AudioContext) return;
  context ??= new AudioContext();
  const { wave, tones } = SOUNDS[kind];
  const now = context.currentTime;
  for (const [frequency, start, length] of tones) {
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.type = wave;
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(VOLUME, now + start);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    tone.connect(gain).connect(context.destination);
    tone.start(now + start);
    tone.stop(now + start + length);
  }
}
