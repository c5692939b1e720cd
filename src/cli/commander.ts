// commander, required as CommonJS (which it is): imported from an ES module, Node first runs its CommonJS-export lexer
// over commander's code and wraps it, on every start (~6 ms measured, of a small input's 40).
import { createRequire } from 'node:module';
import type * as commander from 'commander';

const cm = createRequire(import.meta.url)('commander') as typeof commander;

export const Command = cm.Command;
export type Command = commander.Command;
export const CommanderError = cm.CommanderError;
export type CommanderError = commander.CommanderError;
export const Option = cm.Option;
export type Option = commander.Option;
