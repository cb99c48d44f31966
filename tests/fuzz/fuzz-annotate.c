/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: simnpu-annotate's readers, the debug information
 * (actions.csv, device.txt) and the runtime CSV, through the tool's own
 * read_debug() and read_runtime(), then the join as the tool writes it
 * (annotated CSV, Perfetto trace, overview).
 *
 * Input: actions.csv, device.txt and runtime.csv, in that order,
 * separated by NUL bytes; a missing part is an empty file. */

#include "fuzz-common.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

/* the tool itself, with its main renamed */
int simnpu_annotate_main (int argc, char **argv);
#define main simnpu_annotate_main
#include "../../sim-npu/tools/simnpu-annotate.c"
#undef main

enum
{
  PART_ACTIONS,
  PART_DEVICE,
  PART_RUNTIME,
  N_PARTS
};

static const char *const part_names[N_PARTS] = {
  "actions.csv", "device.txt", "runtime.csv"
};

#define SHM_SCRATCH "/dev/shm/fuzz-annotate-XXXXXX"

static gchar *scratch_dir;
static const char *const scratch_files[] = {
  "actions.csv", "device.txt", "runtime.csv", "annotated.csv", "annotated.pb"
};

static void
remove_scratch (void)
{
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (scratch_files); i++) {
    gchar *path = g_build_filename (scratch_dir, scratch_files[i], NULL);

    g_unlink (path);
    g_free (path);
  }
  g_rmdir (scratch_dir);
}

static gchar *
scratch (const char *name)
{
  return g_build_filename (scratch_dir, name, NULL);
}

static void
write_part (const char *name, const uint8_t * data, size_t size)
{
  gchar *path = scratch (name);

  if (!g_file_set_contents (path, (const gchar *) data, (gssize) size, NULL))
    abort ();
  g_free (path);
}

/* The tool's output and overview, which go to stdout, are not the
 * subject here: stdout points at /dev/null while they run. */
static int
silence_stdout (void)
{
  int saved, null_fd;

  fflush (stdout);
  saved = dup (STDOUT_FILENO);
  null_fd = open ("/dev/null", O_WRONLY);
  if (saved < 0 || null_fd < 0)
    abort ();
  dup2 (null_fd, STDOUT_FILENO);
  close (null_fd);
  return saved;
}

static void
restore_stdout (int saved)
{
  fflush (stdout);
  dup2 (saved, STDOUT_FILENO);
  close (saved);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  annotate an = { 0 };
  const uint8_t *p = data, *end = data + size;
  gchar *runtime, *out_csv, *out_pb;
  unsigned i;
  int saved;

  if (scratch_dir == NULL) {
    /* in memory when it can be: a run writes and reads five files */
    scratch_dir = g_strdup (SHM_SCRATCH);
    if (g_mkdtemp (scratch_dir) == NULL) {
      g_free (scratch_dir);
      scratch_dir = g_dir_make_tmp ("fuzz-annotate-XXXXXX", NULL);
    }
    if (scratch_dir == NULL)
      abort ();
    atexit (remove_scratch);
  }
  for (i = 0; i < N_PARTS; i++) {
    const uint8_t *sep = i + 1 < N_PARTS ? memchr (p, '\0', end - p) : NULL;
    const uint8_t *stop = sep ? sep : end;

    write_part (part_names[i], p, (size_t) (stop - p));
    p = sep ? sep + 1 : end;
  }

  an.actions = g_ptr_array_new_with_free_func (free_action);
  an.resources = g_ptr_array_new_with_free_func (g_free);
  an.rows = g_array_new (FALSE, TRUE, sizeof (row));
  an.job_core = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      NULL);
  runtime = scratch (part_names[PART_RUNTIME]);
  out_csv = scratch ("annotated.csv");
  out_pb = scratch ("annotated.pb");
  saved = silence_stdout ();
  if (read_debug (&an, scratch_dir) == 0 && read_runtime (&an, runtime) == 0) {
    g_array_sort (an.rows, compare_rows);
    write_csv (&an, out_csv);
    write_perfetto (&an, out_pb);
    print_overview (&an);
  }
  restore_stdout (saved);
  g_free (runtime);
  g_free (out_csv);
  g_free (out_pb);

  for (i = 0; i < an.rows->len; i++)
    g_free (g_array_index (an.rows, row, i).dispatch);
  g_array_free (an.rows, TRUE);
  g_ptr_array_free (an.actions, TRUE);
  g_ptr_array_free (an.resources, TRUE);
  g_hash_table_destroy (an.job_core);
  g_free (an.model);
  return 0;
}
