/** Ticks the warm-up queues: the count measured (about 30 ms of start-up, the ticks run included). */
const WARM_UP_TICKS = 50_000;

const doNothing = () => {};

/**
 * Runs process.nextTick on one callback, many times, before the service
 * starts. Node's stream and HTTP code schedules about six ticks a request,
 * each a small object made by one literal in nextTick. Left to the mixed
 * traffic of start-up, V8 put that literal on its slow path in 8 of 20
 * processes (every tick's properties defined through the runtime,
 * `Runtime_DefineKeyedOwnPropertyInLiteral` in `perf`: a health check 20 %
 * dearer for the process's life); after this warm-up, in none of the 20
 * measured (README, Performance). Which feedback it settles is V8's
 * business; that it does at start is measured. It is no guarantee for a
 * process's whole life: a few long-lived processes were found on the slow
 * path later (README).
 */
export function warmUpNextTick(): void {
  for (let tick = 0; tick < WARM_UP_TICKS; tick++) process.nextTick(doNothing);
}
