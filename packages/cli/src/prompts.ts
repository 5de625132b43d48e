import { usageError } from './exit-codes.js';
import type { Io } from './io.js';

/**
 * A required value: the one given, else (only when stdin and stdout are terminals) the answer to `ask`, else a
 * usage error naming the flag, so scripts fail at once instead of hanging on a prompt.
 */
export async function need<T>(io: Io, value: T | undefined, missing: string, ask: () => Promise<T>): Promise<T> {
  if (value !== undefined && value !== null && value !== '') return value;
  if (!io.interactive) throw usageError(`missing ${missing}`);
  return ask();
}

// Loaded on first use: most commands never prompt, and the prompt library is the slowest import.
const prompts = () => import('@inquirer/prompts');

export const askText = async (message: string, validate?: (v: string) => true | string) =>
  (await prompts()).input({ message, validate: validate ?? ((v) => (v.trim() ? true : 'required')) });

export const askPassword = async (message: string) =>
  (await prompts()).password({ message, mask: true, validate: (v) => (v ? true : 'required') });

export const askChoice = async (message: string, choices: string[]) =>
  (await prompts()).select({ message, choices: choices.map((value) => ({ value, name: value })) });

export const askConfirm = async (message: string) => (await prompts()).confirm({ message });

/** Ctrl-C inside a prompt. */
export const isPromptCancel = (e: unknown) => e instanceof Error && e.name === 'ExitPromptError';
