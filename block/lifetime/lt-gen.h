/* SPDX-License-Identifier: GPL-2.0 */
/* Generations of files for the lifetime policy: see lt-gen.c. */
#ifndef _LT_GEN_H
#define _LT_GEN_H

struct gendisk;
struct inode;
struct seq_file;
struct super_block;

int lt_gen_init(void);
void lt_gen_exit(void);
void lt_gen_watch(const struct gendisk *disk, struct super_block *sb);
void lt_gen_forget(const struct gendisk *disk);
u32 lt_gen_of(const struct inode *inode);
void lt_gen_show(struct seq_file *m);

#endif /* _LT_GEN_H */
