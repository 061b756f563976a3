/**
 * A seeded mailbox for adapter and contract tests: alice's own calendar (Berlin times under
 * their Windows name, an invitation, an all-day event, a weekly series across the 2026-10-25
 * DST change with a moved and a deleted instance), a shared and a read-only calendar, and a
 * calendar with 25 events for paging.
 */
import type { FakeGraphEventSeed, FakeGraphUserSeed } from './store.ts';

export const alice = 'alice@example.com';
const berlin = { zone: 'Europe/Berlin', originalStartTimeZone: 'W. Europe Standard Time' };

export const planningBody =
  '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><style>p{margin:0}</style>' +
  '</head><body><div><p>Agenda:</p><ul><li>Budget &amp; plan</li><li>Risks &lt;high&gt;</li></ul>' +
  '<p>Coffee&nbsp;&#8364;2,<br>see you</p><!-- hidden --></div></body></html>';

const primaryEvents: FakeGraphEventSeed[] = [
  {
    id: 'evt-planning',
    ...berlin,
    start: '2026-06-10T09:30:00',
    end: '2026-06-10T11:00:00',
    subject: 'Planning',
    body: { contentType: 'html', content: planningBody },
    locations: [
      {
        displayName: 'Room 4.01',
        locationType: 'conferenceRoom',
        coordinates: { latitude: 52.52, longitude: 13.405 },
      },
      { displayName: 'Main office', locationType: 'default', coordinates: {} },
    ],
    isOnlineMeeting: true,
    onlineMeetingProvider: 'teamsForBusiness',
    onlineMeeting: { joinUrl: 'https://teams.microsoft.com/l/meetup-join/planning' },
    categories: ['Blue category', 'Project X'],
    showAs: 'tentative',
    sensitivity: 'private',
    reminderMinutesBeforeStart: 15,
    attendees: [
      {
        type: 'required',
        status: { response: 'none' },
        emailAddress: { name: 'Bob', address: 'bob@example.com' },
      },
    ],
    webLink: 'https://outlook.office365.com/owa/?itemid=planning',
    changeKey: 'ck-planning-1',
  },
  {
    id: 'evt-invite',
    zone: 'America/New_York',
    originalStartTimeZone: 'America/New_York',
    start: '2026-06-11T08:00:00',
    end: '2026-06-11T08:45:00',
    subject: 'Vendor call',
    body: { contentType: 'text', content: '  Dial in early.\r\n' },
    isOrganizer: false,
    responseStatus: { response: 'tentativelyAccepted', time: '2026-06-01T10:00:00Z' },
    organizer: { emailAddress: { name: 'Carol', address: 'carol@vendor.example' } },
    attendees: [
      { type: 'required', status: { response: 'tentativelyAccepted' }, emailAddress: { address: alice } },
    ],
    showAs: 'free',
    sensitivity: 'confidential',
    isReminderOn: false,
    location: { displayName: 'Phone', coordinates: {} },
    onlineMeetingUrl: 'https://meet.vendor.example/123',
    webLink: null,
    changeKey: 'ck-invite-7',
  },
  {
    id: 'evt-holiday',
    ...berlin,
    isAllDay: true,
    start: '2026-07-01',
    end: '2026-07-03',
    subject: 'Out of office',
    showAs: 'oof',
    isReminderOn: false,
  },
  {
    id: 'evt-custom-zone',
    zone: 'Asia/Kolkata',
    originalStartTimeZone: 'Customized Time Zone',
    start: '2026-06-12T10:00:00',
    end: '2026-06-12T10:00:00',
    subject: 'Reminder',
    isCancelled: true,
  },
  {
    id: 'evt-overnight',
    ...berlin,
    start: '2026-10-24T22:00:00',
    end: '2026-10-25T10:00:00',
    subject: 'Night shift',
  },
  {
    id: 'evt-retreat',
    ...berlin,
    start: '2026-10-24T12:00:00',
    end: '2026-10-25T12:30:00',
    subject: 'Retreat',
  },
  {
    id: 'series-standup',
    ...berlin,
    start: '2026-10-19T09:00:00',
    end: '2026-10-19T09:15:00',
    subject: 'Standup',
    repeats: {
      count: 4,
      exceptions: [
        { index: 1, start: '2026-10-27T10:00:00', end: '2026-10-27T10:15:00', subject: 'Standup (moved)' },
      ],
      cancelled: [2],
    },
  },
];

const busyEvents: FakeGraphEventSeed[] = Array.from({ length: 25 }, (_, day) => ({
  id: `busy-${day + 1}`,
  start: Temporal.PlainDateTime.from('2026-06-01T10:00:00').add({ days: day }).toString(),
  end: Temporal.PlainDateTime.from('2026-06-01T10:30:00').add({ days: day }).toString(),
  subject: `Busy ${day + 1}`,
}));

export const sampleUsers = (): FakeGraphUserSeed[] => [
  {
    email: alice,
    displayName: 'Alice Example',
    calendars: [
      {
        id: 'cal-primary',
        name: 'Calendar',
        hexColor: '#0078d4',
        isDefaultCalendar: true,
        events: primaryEvents,
      },
      {
        id: 'cal-team',
        name: 'Team',
        owner: { name: 'Bob', address: 'bob@example.com' },
        events: [{ ...primaryEvents[0]!, id: 'evt-team-planning' }],
      },
      {
        id: 'cal-holidays',
        name: 'Holidays in Germany',
        canEdit: false,
        owner: { address: 'holidays@example.com' },
      },
      { id: 'cal-busy', name: 'Busy', events: busyEvents },
    ],
  },
  { email: 'bob@example.com', calendars: [{ id: 'bob-primary', name: 'Calendar', isDefaultCalendar: true }] },
];
