/**
 * Stalls of the event loop as they happen: a timer every `everyMs` measures how late it fires;
 * later than the threshold, `onStall` hears it once (one stall, one call, however long it is).
 */
export function watchEventLoopStalls(
  onStall: (delayMs: number) => void,
  { thresholdMs = 1_000, everyMs = 100 } = {},
): () => void {
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const lateMs = now - last - everyMs;
    last = now;
    if (lateMs > thresholdMs) onStall(lateMs);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
