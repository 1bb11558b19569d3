// metadata.generateName: kube-apiserver's SimpleNameGenerator appends five characters from an
// alphabet without vowels (so no words form by accident) and without look-alike characters.

import { randomInt } from 'node:crypto';

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
/** A generated name must still fit a DNS label (63); the base is trimmed to leave room for the suffix. */
const MAX_BASE_LENGTH = 63 - RANDOM_LENGTH;

export function generateName(base: string): string {
  const trimmed = base.length > MAX_BASE_LENGTH ? base.slice(0, MAX_BASE_LENGTH) : base;
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return trimmed + suffix;
}

/** kube-apiserver tries this many generated names before reporting the AlreadyExists conflict. */
export const MAX_NAME_GENERATION_ATTEMPTS = 8;
