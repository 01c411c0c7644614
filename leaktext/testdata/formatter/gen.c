/*
 * gen.c writes small sp-rtrace text reports line by line with the printf
 * formats of sp-rtrace's formatter (src/library/sp_rtrace_formatter.c,
 * sp-rtrace 1.8), for the line forms real reports rarely or never show:
 * an empty header value, a resource description holding ")", attachment
 * paths and argument values with spaces, an empty argument value (what
 * the file module writes for an unnamed socket's path). The values are
 * made up; the formats are the formatter's. Run gen.sh to rebuild.
 */
#include <stdio.h>

/* header: every field as "%s=%s, ", the line ended by "\n" */
static void header(const char **kv)
{
	for (; kv[0]; kv += 2) {
		if (kv[1]) printf("%s=%s, ", kv[0], kv[1]);
	}
	printf("\n");
}

static void mmap_line(const char *module, unsigned long from, unsigned long to)
{
	printf(": %s => 0x%lx-0x%lx\n", module, from, to);
}

static void context(unsigned int id, const char *name)
{
	printf("@ %x : %s\n", id, name);
}

/* id is the type's ordinal n, printed as the bit 1 << (n - 1) */
static void resource(int id, const char *type, const char *desc, int refcount)
{
	printf("<%x> : %s (%s)", 1 << (id - 1), type, desc);
	if (refcount) printf(" [%s]", "refcount");
	printf("\n");
}

static void attachment(const char *name, const char *path)
{
	printf("& %s : %s\n", name, path);
}

/* a call: timestamp in milliseconds, 0 for none; type NULL when the
 * report has one resource type */
static void call(int index, unsigned int ctx, unsigned int timestamp, const char *name,
		const char *type, int alloc, int size, unsigned long id)
{
	printf("%d. ", index);
	if (ctx) printf("@%x ", ctx);
	if (timestamp) {
		printf("[%02d:%02d:%02d.%03d] ", timestamp / 3600000, timestamp % 3600000 / 60000,
				timestamp % 60000 / 1000, timestamp % 1000);
	}
	printf("%s", name);
	if (type) printf("<%s>", type);
	if (alloc) printf("(%d) = 0x%lx", size, id);
	else printf("(0x%lx)", id);
	printf("\n");
}

static void args(const char **kv)
{
	for (; kv[0]; kv += 2) printf("\t$%s = %s\n", kv[0], kv[1]);
}

/* the backtrace, then the empty line the formatter ends every call with */
static void trace(const unsigned long *frames, const char **resolved, int n)
{
	for (int i = 0; i < n; i++) {
		printf("\t0x%lx", frames[i]);
		if (resolved && resolved[i]) printf(" %s", resolved[i]);
		printf("\n");
	}
	printf("\n");
}

static void file_report(void)
{
	const char *h[] = {"version", "2.0", "arch", "x86_64", "timestamp", "2026.11.23 12:30:00",
		"process", "", "pid", "4242", "backtrace depth", "3", "origin", "sp-rtrace 1.8", NULL};
	header(h);
	context(1, "startup (before main)");
	resource(1, "fd", "file descriptor (open(2), socket(2))", 0);
	resource(2, "fp", "file pointer", 0);
	attachment("maps", "/tmp/sp-rtrace/my app.maps");
	mmap_line("/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f1c2a428000, 0x7f1c2a5bd000);
	unsigned long bt[] = {0x7f1c2a4f1e2d, 0x401208, 0x401247};
	const char *res[] = {"open from /usr/lib/x86_64-linux-gnu/libc.so.6", "main() at my app.c:12", NULL};

	call(1, 1, 43200123, "open", "fd", 1, 1, 3);
	const char *a1[] = {"path", "/home/user/My Documents/notes.txt", "flags", "0x0", NULL};
	args(a1);
	trace(bt, res, 3);

	call(2, 0, 43200125, "accept", "fd", 1, 1, 4);
	const char *a2[] = {"path", "", NULL};
	args(a2);
	trace(bt, NULL, 2);

	call(3, 0, 43200130, "socket", "fd", 1, 1, 5);
	const char *a3[] = {"domain", "0xa", "type", "0x1", "protocol", "0x0",
		"peer", "fe80::1ff:fe23:4567:890a%eth0 port 22", NULL};
	args(a3);
	trace(bt, NULL, 3);

	call(4, 0, 43200140, "fopen", "fp", 1, 1, 0x1d2e010);
	const char *a4[] = {"path", " leading and trailing spaces ", "mode", "r", NULL};
	args(a4);
	trace(bt + 1, res + 1, 2);

	call(5, 0, 43200150, "close", "fd", 0, 0, 3);
	trace(NULL, NULL, 0);
}

static void memory_report(void)
{
	const char *h[] = {"version", "2.0", "arch", "i686", "timestamp", "2026.11.23 12:31:00",
		"process", "./demo", "pid", "4243", "backtrace depth", "2", NULL};
	header(h);
	resource(1, "memory", "memory allocation (bytes)", 1);
	call(1, 0, 0, "malloc", NULL, 1, 2147483647, 0x8b612a0);
	unsigned long bt[] = {0x8048520, 0x8048600};
	trace(bt, NULL, 2);
	call(2, 0, 86399999, "calloc", NULL, 1, -1, 0x8b612b0);
	trace(bt, NULL, 1);
	call(3, 0, 0, "free", NULL, 0, 0, 0x8b612a0);
	trace(NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && argv[1][0] == 'f') file_report();
	else memory_report();
	return 0;
}
