// A bad command line: the CLI prints its message with the command's usage and exits 2. Anything
// else thrown by a command is a file or run problem: its message is printed and the exit is 1.
export class UsageError extends Error {}
