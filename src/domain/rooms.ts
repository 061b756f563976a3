/**
 * Rooms of a workspace: bookable by their address, described by a name, a capacity where known
 * and features (short lower-case words such as `video`). What a meeting asks of a room, and which
 * rooms fit it, smallest first so that a large room stays free for a large meeting. Pure.
 */
import { invalidField } from '../errors.ts';
import { hasControlCharacters } from '../lib/text.ts';

export interface Room {
  email: string;
  name: string;
  /** Seats; absent when nobody said. */
  capacity?: number;
  features: string[];
}

export const maxRoomCapacity = 10_000;
export const maxRoomFeatures = 10;
const maxFeatureLength = 40;
const maxRoomNameLength = 200;

/** What a meeting asks of its room. */
export interface RoomNeeds {
  minCapacity: number;
  features: string[];
}

/** A feature as stored and compared: trimmed, lower case, single spaces. */
const featureKey = (text: string) => text.trim().normalize('NFC').toLowerCase().replace(/\s+/g, ' ');

/** Features from a list or a comma-separated line, each given once; empty entries are dropped. */
export function parseFeatures(input: unknown, field: string): string[] {
  const items = typeof input === 'string' ? input.split(',') : input === undefined ? [] : input;
  if (!Array.isArray(items)) throw invalidField(field, 'Give features as a list of words.');
  const features = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string') throw invalidField(field, 'Give features as words.');
    const feature = featureKey(item);
    if (feature === '') continue;
    if (feature.length > maxFeatureLength || hasControlCharacters(feature))
      throw invalidField(field, `A feature is a word or two of at most ${maxFeatureLength} characters.`);
    features.add(feature);
  }
  if (features.size > maxRoomFeatures) throw invalidField(field, `Name at most ${maxRoomFeatures} features.`);
  return [...features];
}

/** A capacity as typed (empty: unknown) or as a provider gives it (a whole number of seats). */
export function parseCapacity(input: unknown, field: string): number | undefined {
  if (input === undefined || input === null || input === '') return undefined;
  const value = typeof input === 'string' ? Number(input.trim()) : input;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > maxRoomCapacity)
    throw invalidField(field, `A capacity is a whole number of seats from 1 to ${maxRoomCapacity}.`);
  return value;
}

/** A room's name as given: trimmed, without control characters, bounded. */
export function parseRoomName(input: unknown, field: string): string {
  const name = typeof input === 'string' ? input.trim().normalize('NFC') : '';
  if (name === '' || hasControlCharacters(name) || [...name].length > maxRoomNameLength)
    throw invalidField(field, `Give the room's name, at most ${maxRoomNameLength} characters.`);
  return name;
}

/** The needs a tool was given (its schema bounds them); absent members ask nothing. */
export const roomNeeds = (input: { minCapacity?: number; features?: string[] } = {}): RoomNeeds => ({
  minCapacity: input.minCapacity ?? 1,
  features: parseFeatures(input.features, 'rooms.features'),
});

/**
 * The rooms that fit: at least the capacity (a room of unknown capacity fits only when none is
 * asked) and every feature; smallest first, then by name.
 */
export function fittingRooms(rooms: readonly Room[], needs: RoomNeeds): Room[] {
  return rooms
    .filter(
      (room) =>
        (needs.minCapacity <= 1 || (room.capacity ?? 0) >= needs.minCapacity) &&
        needs.features.every((feature) => room.features.includes(feature)),
    )
    .sort(
      (a, b) =>
        (a.capacity ?? Number.MAX_SAFE_INTEGER) - (b.capacity ?? Number.MAX_SAFE_INTEGER) ||
        a.name.localeCompare(b.name),
    );
}
