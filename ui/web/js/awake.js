/* Keeping the screen awake while a timer runs: the Wake Lock API exists only in secure contexts
 * (https, localhost) and the table serves plain http on the LAN, so NoSleep.js (vendored, a
 * classic script loaded before the modules) falls back to a muted looping video, which a browser
 * starts only from a tap: the player's next tap while a timer runs. */

import { S } from "./state.js";
import { activeTimer, timerLeft } from "./clock.js";

const noSleep = window.NoSleep ? new window.NoSleep() : null;
S.noSleep = noSleep;
let armed = false;
function timerRunning() {
  const a = activeTimer();
  return !!(a && !a.t.paused && timerLeft(a.t) > 0) && document.visibilityState === "visible";
}
function keepAwake() {
  armed = false;
  if (noSleep && !noSleep.isEnabled && timerRunning()) noSleep.enable().catch(() => { /* refused */ });
}
export function updateWakeLock() {
  if (!noSleep) return;
  const want = timerRunning();
  S.awake = noSleep.isEnabled;
  if (want && !noSleep.isEnabled) {
    if ("wakeLock" in navigator) keepAwake();
    else if (!armed) {
      armed = true;
      document.addEventListener("pointerdown", keepAwake, { once: true, capture: true });
    }
  } else if (!want && noSleep.isEnabled) {
    noSleep.disable();
  }
}
