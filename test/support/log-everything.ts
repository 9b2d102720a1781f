// Imported first by tests that scan every log line: the handlers' logger reads its level when its module loads.
process.env.POWERTOOLS_LOG_LEVEL = "DEBUG";
