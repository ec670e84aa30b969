// Command harness measures acprun against the bare limit client and prints
// a table of each measurement, its target and PASS or MISS. bench/run.sh
// builds the binaries it needs and calls it.
//
// Every ratio compares medians of runs that alternate between acprun and
// the limit client, so that a machine that slows down part way through
// slows both. Wall time is measured around the process; CPU and peak
// memory come from the rusage wait4 reports for it (its own and that of the
// agents it waited for; peak memory is the largest of them).
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.acprun, "acprun", "", "the acprun binary (built without -race)")
	flag.StringVar(&cfg.agent, "agent", "", "the floodagent binary")
	flag.StringVar(&cfg.limit, "limit", "", "the limitclient binary")
	flag.BoolVar(&cfg.quick, "quick", false, "a smoke run: small sizes, one repetition")
	flag.IntVar(&cfg.reps, "reps", 5, "repetitions of each timed comparison")
	checkPath := flag.String("check", "", "internal: check the results FILE of one turn and exit")
	chunks := flag.Int("chunks", 0, "internal: with -check, the chunks recorded")
	text := flag.Int("text", 0, "internal: with -check, the bytes of text kept")
	stop := flag.String("stop", "", "internal: with -check, the stop reason")
	only := flag.String("only", "", "make only the measurements whose name matches this regexp: flood100k, flood1M, permissions, startup, batch, deadline, grace, suite")
	flag.Parse()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness: -only:", err)
			os.Exit(2)
		}
		cfg.only = re
	}
	if *checkPath != "" {
		if err := check(*checkPath, *chunks, *text, *stop); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if cfg.acprun == "" || cfg.agent == "" || cfg.limit == "" {
		fmt.Fprintln(os.Stderr, "usage: harness -acprun BIN -agent BIN -limit BIN [-quick] [-reps N]")
		os.Exit(2)
	}
	rows, err := run(cfg, os.Stderr)
	printTable(os.Stdout, rows)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}
