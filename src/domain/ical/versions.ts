/**
 * Feeds often carry several versions of one component (a master exported twice, an override
 * edited again). The one with the higher SEQUENCE counts; on a tie, the later one in the file.
 */
import type { Component } from './parse.ts';

export function latest(components: Component[]): Component | undefined {
  return components.reduce<Component | undefined>(
    (best, component) => (best === undefined || sequenceOf(component) >= sequenceOf(best) ? component : best),
    undefined,
  );
}

function sequenceOf(component: Component): number {
  const sequence = component.getFirstPropertyValue('sequence');
  return typeof sequence === 'number' && Number.isFinite(sequence) ? sequence : 0;
}
