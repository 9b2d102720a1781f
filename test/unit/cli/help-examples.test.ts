import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { billingProgram, COMMAND_EXAMPLES, leafCommands } from "../../../cli/billing-cli";

// Every command of the ops CLI shows an example under its --help (README, Ops CLI): a command added without one fails
// here.

const sink = () =>
  new Writable({
    write: (_chunk, _encoding, done) => done(),
  });

describe("the ops CLI's help", () => {
  const program = billingProgram({ stdout: sink(), stderr: sink() }, () => async () => undefined);
  const commands = leafCommands(program);

  it("has an example for every command, and none for a command that does not exist", () => {
    expect(commands.map(([path]) => path).sort()).toEqual(Object.keys(COMMAND_EXAMPLES).sort());
  });

  it.each(commands)("%s --help ends with its example", (path, command) => {
    let help = "";
    command.configureOutput({ writeOut: (text) => (help += text) });
    command.outputHelp();
    expect(help).toContain(`Example:\n  ${COMMAND_EXAMPLES[path]}\n`);
  });
});
