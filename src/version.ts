// Kept in step with package.json by a test (test/cli.test.ts), so the compiled CLI needs no JSON import.
export const TOOL_VERSION = '0.1.0';
