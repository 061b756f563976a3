/** The one migration set, applied in order on both engines. Append; never edit a released one. */
import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_people_and_workspaces.ts';
import * as m0002 from './0002_connected_accounts.ts';
import * as m0003 from './0003_authorization.ts';
import * as m0004 from './0004_event_writes.ts';
import * as m0005 from './0005_calendar_copies.ts';
import * as m0006 from './0006_push_channels.ts';
import * as m0007 from './0007_password_reset.ts';
import * as m0008 from './0008_grant_budget.ts';
import * as m0009 from './0009_sync_staging.ts';
import * as m0010 from './0010_pending_event_writes.ts';
import * as m0011 from './0011_copy_private_details.ts';
import * as m0012 from './0012_push_handshakes.ts';
import * as m0013 from './0013_copy_rows_answer_reads.ts';
import * as m0014 from './0014_copy_read_index_covers_reads.ts';
import * as m0015 from './0015_workspace_default_level.ts';
import * as m0016 from './0016_event_write_new_series.ts';
import * as m0017 from './0017_colleague_availability.ts';
import * as m0018 from './0018_workspace_rooms.ts';
import * as m0019 from './0019_packed_occurrences.ts';
import * as m0020 from './0020_working_hours.ts';
import * as m0021 from './0021_copy_words.ts';
import * as m0022 from './0022_drop_copy_text_index.ts';
import * as m0023 from './0023_copy_rows_keep_no_text.ts';
import * as m0024 from './0024_copy_items_without_rowid.ts';
import * as m0025 from './0025_copy_status_codes.ts';
import * as m0026 from './0026_grant_budget_unlogged.ts';
import * as m0027 from './0027_copies_numbered.ts';
import * as m0028 from './0028_copy_words_in_slots.ts';
import * as m0029 from './0029_copy_read_index_numbered.ts';
import * as m0030 from './0030_copy_rows_without_calendar.ts';
import * as m0031 from './0031_copy_starts.ts';

export const migrations: Record<string, Migration> = {
  '0001_people_and_workspaces': m0001,
  '0002_connected_accounts': m0002,
  '0003_authorization': m0003,
  '0004_event_writes': m0004,
  '0005_calendar_copies': m0005,
  '0006_push_channels': m0006,
  '0007_password_reset': m0007,
  '0008_grant_budget': m0008,
  '0009_sync_staging': m0009,
  '0010_pending_event_writes': m0010,
  '0011_copy_private_details': m0011,
  '0012_push_handshakes': m0012,
  '0013_copy_rows_answer_reads': m0013,
  '0014_copy_read_index_covers_reads': m0014,
  '0015_workspace_default_level': m0015,
  '0016_event_write_new_series': m0016,
  '0017_colleague_availability': m0017,
  '0018_workspace_rooms': m0018,
  '0019_packed_occurrences': m0019,
  '0020_working_hours': m0020,
  '0021_copy_words': m0021,
  '0022_drop_copy_text_index': m0022,
  '0023_copy_rows_keep_no_text': m0023,
  '0024_copy_items_without_rowid': m0024,
  '0025_copy_status_codes': m0025,
  '0026_grant_budget_unlogged': m0026,
  '0027_copies_numbered': m0027,
  '0028_copy_words_in_slots': m0028,
  '0029_copy_read_index_numbered': m0029,
  '0030_copy_rows_without_calendar': m0030,
  '0031_copy_starts': m0031,
};
