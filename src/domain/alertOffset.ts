/**
 * The one written form of an alert's offset: seconds from the start, balanced up to days of 24
 * hours (-PT15M, -PT1H30M, -P1D), so the same reminder reads the same from every provider
 * (Google and Graph count minutes, VALARM triggers may say -PT1440M or -P1D or -P1W). Pure.
 */
export const alertOffset = (seconds: number): string =>
  Temporal.Duration.from({ seconds: Math.round(seconds) })
    .round({ largestUnit: 'days' })
    .toString();
