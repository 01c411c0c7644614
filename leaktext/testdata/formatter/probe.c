/*
 * probe.c reads a report's lines with the sscanf formats of sp-rtrace's
 * text parser (src/library/sp_rtrace_parser.c at HEAD), trying them in the
 * parser's order, and prints what each line becomes for it: one line of
 * output per input line, the record kind and the fields it keeps. Only
 * the formats are the parser's; the program is ours. gen.sh runs it.
 */
#include <stdio.h>
#include <string.h>
int main(void) {
	char line[4096]; int first = 1;
	while (fgets(line, sizeof line, stdin)) {
		if (first) {
			first = 0; const char *p = line; char k[256], v[4096];
			printf("HEADER");
			while (sscanf(p, "%[^=]=%[^,]", k, v) == 2) {
				printf(" [%s]=[%s]", k, v);
				p = strchr(p, ','); if (!p++) break; while (*p == ' ') p++;
			}
			printf("\n"); continue;
		}
		line[strcspn(line, "\n")] = 0;
		unsigned long a, b; char s1[4096], s2[4096], s3[4096]; unsigned x; int n, idx; char d;
		if (line[0] == '\t' && (n = sscanf(line, "\t0x%lx %[^\n]", &a, s1)) >= 1) { printf("FRAME %lx [%s]\n", a, n == 2 ? s1 : ""); continue; }
		/* the call parser checks more; these reports' calls pass it */
		if (sscanf(line, "%d%c", &idx, &d) == 2 && d == '.') { printf("CALL %d\n", idx); continue; }
		if (line[0] == '\t' && sscanf(line, "\t$%s = %s", s1, s2) == 2) { printf("ARG [%s]=[%s]\n", s1, s2); continue; }
		if (sscanf(line, ": %s => 0x%lx-0x%lx", s1, &a, &b) == 3) { printf("MMAP [%s]\n", s1); continue; }
		if (sscanf(line, "@ %x : %[^\n]", &x, s1) == 2) { printf("CONTEXT %x [%s]\n", x, s1); continue; }
		if ((n = sscanf(line, "<%x> : %[^ ] (%[^)]) [%[^]]]", &x, s1, s2, s3)) >= 3) { printf("RESOURCE %x [%s] [%s] flags[%s]\n", x, s1, s2, n >= 4 ? s3 : ""); continue; }
		if (sscanf(line, "& %s : %s", s1, s2) == 2) { printf("ATTACH [%s] [%s]\n", s1, s2); continue; }
		printf(line[0] ? "COMMENT [%s]\n" : "EMPTY\n", line);
	}
	return 0;
}
