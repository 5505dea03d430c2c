// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count.so: a QEMU TCG plugin that counts the guest instructions
 * run from each translation block's start address, in windows the
 * guest opens and closes by running one marked address (for
 * scripts/bench-insn, the sync(2) system call).
 *
 * Arguments: mark=HEX (guest virtual address, needed), out=PATH (default
 * insn-count).  The first run of the mark opens a window, the next closes
 * it and writes PATH.N (N = 0, 1, ...): one "ADDRESS INSTRUCTIONS RUNS"
 * line per block start run in the window, in hex, then decimal, then
 * "total N".  A window still open at exit is written too.
 *
 * A block counts all its instructions each time it starts, so one that an
 * interrupt cuts short counts a few too many.  The counts are plain adds:
 * run QEMU with one thread for all vCPUs (-accel tcg,thread=single, as
 * scripts/vm-run --icount does).
 *
 * Only the few calls used are declared here, as QEMU documents them for
 * its plugin API version 4, the one QEMU 10.0 implements.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int vcpu, void *data),
	enum qemu_plugin_cb_flags flags, void *data);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, void *data), void *data);

__attribute__((visibility("default"))) int qemu_plugin_version = 4;

/* One translation of a block; a block translated again gets another. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t runs;
	struct block *next;
};

static struct block *blocks;
static uint64_t mark;
static const char *out = "insn-count";
static int open_window, windows;
static uint64_t total;

static void dump(void)
{
	char path[4096];
	struct block *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%d", out, windows++);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	for (b = blocks; b; b = b->next)
		if (b->runs)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)(b->runs * b->insns),
				(unsigned long long)b->runs);
	fprintf(f, "total %llu\n", (unsigned long long)total);
	fclose(f);
}

static void run_block(unsigned int vcpu, void *data)
{
	struct block *b = data;

	if (open_window) {
		b->runs++;
		total += b->insns;
	}
}

static void run_mark(unsigned int vcpu, void *data)
{
	struct block *b;

	if (open_window) {
		dump();
		open_window = 0;
		return;
	}
	for (b = blocks; b; b = b->next)
		b->runs = 0;
	total = 0;
	open_window = 1;
	run_block(vcpu, data);
}

static void translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, b->vaddr == mark ? run_mark : run_block,
					     QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(qemu_plugin_id_t id, void *data)
{
	if (open_window)
		dump();
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5)) {
			mark = strtoull(argv[i] + 5, NULL, 16);
		} else if (!strncmp(argv[i], "out=", 4)) {
			out = strdup(argv[i] + 4);
		} else {
			fprintf(stderr, "insn-count: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!mark) {
		fprintf(stderr, "insn-count: needs mark=ADDRESS\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
