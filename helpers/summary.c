/*
 * sshperf-summary: statistics of one column of a TSV file (or of one number
 * per line): n, min, p50, p90, p95, p99, max, mean as key=value lines.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "stats.h"

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-summary [-c column] [-w column=value] "
	    "[-p prefix] [file]\n"
	    "Reads a TSV file with a header line (or numbers, one per line, "
	    "without -c)\nand prints n, min, p50, p90, p95, p99, max and mean "
	    "of the column,\nonly over rows where the -w column has that "
	    "value. Cells that are not\nnumbers (\"-\") are skipped.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	const char *column = NULL, *prefix = "", *where = NULL, *errstr;
	char *line = NULL, *where_col = NULL, *where_val = NULL, buf[256],
	    wbuf[256];
	int ch, col = 0, wcol = -1;
	struct samples s;
	size_t cap = 0;
	double v;
	FILE *f = stdin;

	while ((ch = getopt(argc, argv, "c:w:p:h")) != -1) {
		switch (ch) {
		case 'c':
			column = optarg;
			break;
		case 'w':
			where = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc - optind > 1 || (where != NULL && column == NULL))
		usage();
	if (optind < argc && (f = fopen(argv[optind], "re")) == NULL)
		err(2, "%s", argv[optind]);
	if (where != NULL) {
		if ((where_col = strdup(where)) == NULL)
			err(2, NULL);
		if ((where_val = strchr(where_col, '=')) == NULL)
			usage();
		*where_val++ = '\0';
	}
	if (column != NULL) {
		if (getline(&line, &cap, f) < 0)
			errx(2, "no header line");
		if (where_col != NULL) {
			char *copy = strdup(line);

			if (copy == NULL)
				err(2, NULL);
			if ((wcol = tsv_column(copy, where_col)) < 0)
				errx(2, "no column %s", where_col);
			free(copy);
		}
		if ((col = tsv_column(line, column)) < 0)
			errx(2, "no column %s", column);
	}
	samples_init(&s);
	while (getline(&line, &cap, f) >= 0) {
		if (wcol >= 0 &&
		    strcmp(tsv_cell(line, wcol, wbuf, sizeof(wbuf)), where_val) != 0)
			continue;
		if (parse_double(tsv_cell(line, col, buf, sizeof(buf)), 0, 1e300,
		    &v, &errstr) == 0 && samples_add(&s, v) != 0)
			err(2, NULL);
	}
	samples_print(stdout, prefix, &s);
	samples_free(&s);
	free(line);
	free(where_col);
	return 0;
}
