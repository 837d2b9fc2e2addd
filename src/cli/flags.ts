// Flag parsing helpers shared by commands.
import { AppError } from '../errors.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new AppError('USAGE', `${flag} must be a whole number, got "${value}"`);
  return Number(value);
}
