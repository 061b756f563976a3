#!/usr/bin/env bash
# The suites that compute with dates, run again in two zones far from UTC: Auckland (+12/+13,
# its DST in the southern summer) and New York (-5/-4). A `Date` read in local time, or a
# Temporal call that takes the process's zone, answers differently there.
# Left out: accounts and sign-in (instants only), and the store's word index, threads, engine
# restarts and migrations (no local time in them); `npm run test:unit` runs them once.
set -euo pipefail
shopt -s extglob globstar nullglob
cd "$(dirname "$0")/.."
files=(
  test/{domain,calendars,providers,policy,rest,sync}/**/*.test.ts
  test/store/!(compactJson|connectionLoss|copyKeyMigration|copyRowMigrations|copyWords|postgresRestart|reusedStatements|sqliteFileModes|sqliteLoopTurns|sqliteReaders|storageFull|wordCache|wordPostings|wordSlotsMigration).test.ts
  test/mcp/{writeAccess,createEvent,updateEvent,deleteAndRespond,eventGuests,getEvent}.test.ts
  test/e2e/{searchRadicale,writeRoundTrips}.test.ts
  test/contract/storeEqualsLive.test.ts
  test/web/when.test.ts
)
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
[ ${#files[@]} -gt 0 ] || { echo "no test files found" >&2; exit 1; }
for zone in Pacific/Auckland America/New_York; do
  echo "# TZ=$zone: ${#files[@]} files"
  TZ="$zone" node --test --test-concurrency=2 "${files[@]}"
done
