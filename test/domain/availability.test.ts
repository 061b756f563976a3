/**
 * get_availability's busy intervals: busy, not cancelled occurrences cut to the window, sorted,
 * and merged where they overlap or touch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { busyIntervals, mergedSpans } from '../../src/domain/availability.ts';
import type { Event } from '../../src/domain/event.ts';
import type { PlacedEvent } from '../../src/domain/occurrences.ts';

const at = (hhmm: string) => Temporal.Instant.from(`2026-03-02T${hhmm}:00Z`);

let counter = 0;
function placed(
  start: string,
  end: string,
  fields: Partial<Pick<Event, 'freeBusyStatus' | 'status'>> = {},
): PlacedEvent {
  counter += 1;
  return {
    startMs: at(start).epochMilliseconds,
    startNs: at(start).epochNanoseconds,
    endNs: at(end).epochNanoseconds,
    event: {
      eventId: `evt_${counter}`,
      calendarId: 'cal_1',
      occurrenceId: `occ_${counter}`,
      title: 'Busy',
      start: `2026-03-02T${start}:00`,
      timeZone: 'Etc/UTC',
      duration: 'PT1H',
      showWithoutTime: false,
      status: fields.status ?? 'confirmed',
      freeBusyStatus: fields.freeBusyStatus ?? 'busy',
      canRespond: false,
      canEdit: false,
    },
  };
}

const window = { start: at('08:00'), end: at('18:00') };
const show = (spans: ReturnType<typeof busyIntervals>) =>
  spans.map((s) => `${s.start.toString().slice(11, 16)}-${s.end.toString().slice(11, 16)}`);

describe('busyIntervals', () => {
  const cases: Array<[string, PlacedEvent[], string[]]> = [
    ['nothing', [], []],
    ['one event', [placed('09:00', '10:00')], ['09:00-10:00']],
    ['overlapping events merge', [placed('09:00', '10:00'), placed('09:30', '11:00')], ['09:00-11:00']],
    ['touching events merge', [placed('09:00', '10:00'), placed('10:00', '11:00')], ['09:00-11:00']],
    [
      'a gap of one minute stays',
      [placed('09:00', '10:00'), placed('10:01', '11:00')],
      ['09:00-10:00', '10:01-11:00'],
    ],
    ['a contained event adds nothing', [placed('09:00', '12:00'), placed('10:00', '11:00')], ['09:00-12:00']],
    [
      'a chain merges into one',
      [
        placed('09:00', '10:00'),
        placed('09:45', '10:30'),
        placed('10:30', '11:00'),
        placed('10:50', '11:15'),
      ],
      ['09:00-11:15'],
    ],
    [
      'unordered input comes out ordered',
      [placed('15:00', '16:00'), placed('09:00', '10:00'), placed('12:00', '13:00')],
      ['09:00-10:00', '12:00-13:00', '15:00-16:00'],
    ],
    [
      'unordered overlapping input merges',
      [placed('10:00', '11:00'), placed('09:00', '10:30')],
      ['09:00-11:00'],
    ],
    ['free events are ignored', [placed('09:00', '10:00', { freeBusyStatus: 'free' })], []],
    ['cancelled events are ignored', [placed('09:00', '10:00', { status: 'cancelled' })], []],
    ['tentative events count', [placed('09:00', '10:00', { status: 'tentative' })], ['09:00-10:00']],
    [
      'a free event does not bridge two busy ones',
      [
        placed('09:00', '10:00'),
        placed('10:00', '11:00', { freeBusyStatus: 'free' }),
        placed('11:00', '12:00'),
      ],
      ['09:00-10:00', '11:00-12:00'],
    ],
    [
      'a cancelled event does not bridge two busy ones',
      [placed('09:00', '10:00'), placed('09:30', '11:30', { status: 'cancelled' }), placed('11:00', '12:00')],
      ['09:00-10:00', '11:00-12:00'],
    ],
    ['cut at the window start', [placed('07:00', '09:00')], ['08:00-09:00']],
    ['cut at the window end', [placed('17:00', '19:00')], ['17:00-18:00']],
    ['an event over the whole window is the window', [placed('06:00', '20:00')], ['08:00-18:00']],
    ['ending at the window start: nothing', [placed('07:00', '08:00')], []],
    ['starting at the window end: nothing', [placed('18:00', '19:00')], []],
    ['entirely outside: nothing', [placed('05:00', '06:00'), placed('19:00', '20:00')], []],
    ['zero length: nothing', [placed('09:00', '09:00')], []],
  ];
  for (const [what, events, expected] of cases) {
    it(what, () => {
      assert.deepEqual(show(busyIntervals(events, window)), expected);
    });
  }

  it('leaves tentative events out when told they are not busy, and only them', () => {
    const events = [
      placed('09:00', '10:00', { status: 'tentative' }),
      placed('11:00', '12:00'),
      placed('13:00', '14:00', { status: 'tentative', freeBusyStatus: 'free' }),
    ];
    assert.deepEqual(show(busyIntervals(events, window, { tentativeIsBusy: false })), ['11:00-12:00']);
    assert.deepEqual(show(busyIntervals(events, window, { tentativeIsBusy: true })), [
      '09:00-10:00',
      '11:00-12:00',
    ]);
  });

  it('returns instants, across calendars alike, and leaves its input unchanged', () => {
    const a = placed('09:00', '10:00');
    const b = { ...placed('09:30', '11:00') };
    b.event = { ...b.event, calendarId: 'cal_2' };
    const before = [a, b].map((e) => [e.startNs, e.endNs]);
    const spans = busyIntervals([a, b], window);
    assert.equal(spans.length, 1);
    assert.ok(spans[0]!.start instanceof Temporal.Instant);
    assert.equal(spans[0]!.start.toString(), '2026-03-02T09:00:00Z');
    assert.equal(spans[0]!.end.toString(), '2026-03-02T11:00:00Z');
    assert.deepEqual(
      [a, b].map((e) => [e.startNs, e.endNs]),
      before,
    );
  });

  it('keeps sub-second precision at the edges', () => {
    const w = {
      start: Temporal.Instant.from('2026-03-02T09:00:00.5Z'),
      end: Temporal.Instant.from('2026-03-02T09:59:59.999999999Z'),
    };
    const spans = busyIntervals([placed('09:00', '10:00')], w);
    assert.deepEqual(
      spans.map((s) => [s.start.toString(), s.end.toString()]),
      [['2026-03-02T09:00:00.5Z', '2026-03-02T09:59:59.999999999Z']],
    );
  });
});

describe('mergedSpans', () => {
  it('merges spans that overlap, touch or nest, whatever their order, ties included', () => {
    const spans: [number, number][] = [
      [50, 60],
      [10, 20],
      [20, 30],
      [12, 15],
      [40, 45],
      [40, 42],
      [40, 42],
      [70, 70],
      [31, 35],
    ];
    assert.deepEqual(mergedSpans(spans), [
      [10, 30],
      [31, 35],
      [40, 45],
      [50, 60],
      [70, 70],
    ]);
  });

  it('merges nanosecond spans alike', () => {
    assert.deepEqual(
      mergedSpans<bigint>([
        [5n, 9n],
        [1n, 5n],
        [10n, 11n],
      ]),
      [
        [1n, 9n],
        [10n, 11n],
      ],
    );
    assert.deepEqual(mergedSpans([]), []);
  });
});
