/* commands.h — one entry point per subcommand; main.c only dispatches.
 *
 * Each cmd_* parses its own argv (argv[0] is the subcommand name) from a table
 * of its options (core/argv.h; profile's argparse-compatible one is
 * profile/profile_args.c), prints its own output and errors, and returns the
 * process exit status (2 for usage errors). Where each one
 * lives: cmd_profile profile/, cmd_serve serve/, cmd_tokenize tokenizer/,
 * cmd_ingest/cmd_query/cmd_results store/, cmd_run runner/, cmd_telemetry
 * telemetry/, cmd_ui/cmd_report report/, cmd_process_export_files, cmd_analyze,
 * cmd_search, cmd_create_template, cmd_config and cmd_selftest runner/,
 * cmd_compare compare/.
 */
#ifndef GP_COMMANDS_H
#define GP_COMMANDS_H

int cmd_profile(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_telemetry(int argc, char **argv);
int cmd_ui(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_process_export_files(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_create_template(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_selftest(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* Set to "analyze" in the environment of each `genperf profile` cell that
 * cmd_analyze runs, so the cell's input_config records subcommand "analyze",
 * as GenAI-Perf's analyze export does (its input_config is its own config,
 * the Subcommand enum written by name: base_config.py). cmd_profile honours
 * that one value and nothing else; the cell runs as any profile does. */
#define GP_ENV_SUBCOMMAND "GENPERF_RECORD_SUBCOMMAND"

#endif
