/**
 * For loaders that live updates call again while an earlier call may still be waiting: `begin()` at the
 * start of each call returns whether that call is still the newest, to ask before applying its result.
 * Responses need not arrive in order, and an older one applied last shows stale data for good, such as
 * a call still "live" after the event that it ended has been handled.
 */
export function newestWins(): () => () => boolean {
  let latest = 0;
  return () => {
    const mine = ++latest;
    return () => mine === latest;
  };
}
