/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the tools write never destroys what they read, nor what a path
 * is: an output that is one of the inputs (the model, its weights or
 * shards, a calibration image, the module, an --input file, the runtime
 * CSV, the debug info), by name, by another spelling or through a hard
 * link, is refused with "output is the same file as input NAME" and the
 * input keeps its bytes and its inode; a character device as output is
 * written into and stays one; a FIFO as output is written into, its
 * reader getting the whole model. Tool paths come as arguments: compile,
 * run-module, annotate, models source dir. */

#include <gst/gst.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* a tool that waits on something forever is stopped, and fails */
#define TOOL_TIMEOUT "60"
#include "tool-run.h"
#define SAME_AS_INPUT "output is the same file as input"
#define FIFO_MODE 0600
#define POLL_MS 100
#define READ_CHUNK 65536
/* /dev/null's device numbers */
#define NULL_MAJOR 1
#define NULL_MINOR 3
#define PNG_SIZE 8

static const char *compile_tool, *run_tool, *annotate_tool, *models_dir;
static gchar *tmp, *ball_json, *ball_weights, *ball_axm, *debug_dir,
    *runtime_csv, *tfjs_json, *tfjs_shard, *photos, *photo, *char_device;

/* A TF.js graph model of one 1x1 depthwise conv on a [1, 8, 8, 3] image,
 * its weights in one shard. */
static const char tfjs_model[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"8\"}, {\"size\": \"8\"}, {\"size\": \"3\"}]}}}},"
    "{\"name\": \"w\", \"op\": \"Const\"},"
    "{\"name\": \"y\", \"op\": \"DepthwiseConv2dNative\", \"input\": [\"x\","
    " \"w\"], \"attr\": {\"padding\": {\"s\": \"VkFMSUQ=\"},"
    " \"strides\": {\"list\": {\"i\": [\"1\", \"1\", \"1\", \"1\"]}}}}"
    "]}, \"weightsManifest\": [{\"paths\": [\"group1-shard1of1.bin\"],"
    " \"weights\": [{\"name\": \"w\", \"shape\": [1, 1, 3, 1], \"dtype\":"
    " \"float32\"}]}]}";
static const float tfjs_weights[3] = { 0.5f, -1.0f, 2.0f };

static gchar *
tmp_path (const char *name)
{
  return g_build_filename (tmp, name, NULL);
}

static gchar *
read_file (const char *path, gsize * len)
{
  gchar *contents = NULL;
  GError *error = NULL;

  if (!g_file_get_contents (path, &contents, len, &error))
    g_error ("%s", error->message);
  return contents;
}

static ino_t
inode_of (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_ino;
}

/* The tool run with @argv refuses to write over @victim, naming @input
 * (the input's name as the tool knows it) on stderr; @victim keeps its
 * bytes and its inode. */
static void
expect_refused (const char *const *argv, const char *victim, const char *input)
{
  gsize before_len, after_len;
  gchar *before = read_file (victim, &before_len), *after, *needle;
  ino_t ino = inode_of (victim);
  result r = run (argv);

  needle = g_strdup_printf (SAME_AS_INPUT " %s", input);
  if (r.status == 0 || strstr (r.err, needle) == NULL)
    g_error ("expected a failure with '%s'; got %d:\n%s%s", needle, r.status,
        r.out, r.err);
  after = read_file (victim, &after_len);
  g_assert_cmpmem (after, after_len, before, before_len);
  g_assert_cmpuint (inode_of (victim), ==, ino);
  g_free (needle);
  g_free (before);
  g_free (after);
  result_clear (&r);
}

static gchar *
hard_link (const char *target, const char *name)
{
  gchar *path = tmp_path (name);

  g_unlink (path);
  g_assert_cmpint (link (target, path), ==, 0);
  return path;
}

/* ------------------------------------------------------------------ */
/* simnpu-compile                                                       */

/* -o onto the JSON graph, another spelling of it, a hard link to it, and
 * its weights_file (the weights are not read with --estimate-only, but
 * are the model's all the same). */
static void
test_compile_onto_json_graph (void)
{
  gchar *dotted = g_strdup_printf ("%s/./%s", tmp, "ball.json");
  gchar *linked = hard_link (ball_json, "ball-link.json");
  gchar *axm = tmp_path ("never-written.axm");
  const char *same[] = { compile_tool, ball_json, "-o", ball_json, NULL };
  const char *spelt[] = { compile_tool, ball_json, "-o", dotted, NULL };
  const char *via_link[] = { compile_tool, ball_json, "-o", linked, NULL };
  const char *weights[] = { compile_tool, ball_json, "-o", ball_weights,
    NULL
  };
  const char *estimate[] = { compile_tool, ball_json, "-o", ball_weights,
    "--estimate-only", NULL
  };
  const char *trace[] = { compile_tool, ball_json, "-o", axm,
    "--dump-profiling", ball_weights, NULL
  };

  expect_refused (same, ball_json, ball_json);
  expect_refused (spelt, ball_json, ball_json);
  expect_refused (via_link, ball_json, ball_json);
  expect_refused (weights, ball_weights, ball_weights);
  expect_refused (estimate, ball_weights, ball_weights);
  expect_refused (trace, ball_weights, ball_weights);
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
  g_unlink (linked);
  g_free (linked);
  g_free (axm);
  g_free (dotted);
}

/* -o onto a TF.js model, its shard (a hard link to it too), a
 * calibration image given as a file, and one of a calibration folder. */
static void
test_compile_onto_tfjs_inputs (void)
{
  gchar *calib_file = g_strdup_printf ("--calibration=%s", photo);
  gchar *calib_dir = g_strdup_printf ("--calibration=%s", photos);
  gchar *shard_link = hard_link (tfjs_shard, "shard-link.bin");
  gchar *axm = tmp_path ("tfjs.axm");
  const char *model[] = { compile_tool, tfjs_json, "-o", tfjs_json,
    calib_file, NULL
  };
  const char *shard[] = { compile_tool, tfjs_json, "-o", tfjs_shard,
    calib_file, NULL
  };
  const char *via_link[] = { compile_tool, tfjs_json, "-o", shard_link,
    calib_file, NULL
  };
  const char *image[] = { compile_tool, tfjs_json, "-o", photo, calib_file,
    NULL
  };
  const char *in_folder[] = { compile_tool, tfjs_json, "-o", photo,
    calib_dir, NULL
  };
  const char *good[] = { compile_tool, tfjs_json, "-o", axm, calib_dir,
    "-q", NULL
  };
  result r;

  expect_refused (model, tfjs_json, tfjs_json);
  expect_refused (shard, tfjs_shard, tfjs_shard);
  expect_refused (via_link, tfjs_shard, tfjs_shard);
  expect_refused (image, photo, photo);
  expect_refused (in_folder, photo, photo);
  /* the model itself compiles */
  r = run (good);
  expect_success (&r);
  g_assert_true (g_file_test (axm, G_FILE_TEST_IS_REGULAR));
  result_clear (&r);
  g_unlink (shard_link);
  g_free (shard_link);
  g_free (calib_file);
  g_free (calib_dir);
  g_free (axm);
}

/* A private twin of /dev/null (mknod, as root) or /dev/null itself: so
 * that a run of this test on code that renames over its output replaces
 * no device the machine uses. */
static const char *
null_device (void)
{
  gchar *path;
  int fd;

  if (char_device)
    return char_device;
  path = tmp_path ("null");
  if (mknod (path, S_IFCHR | 0666, makedev (NULL_MAJOR, NULL_MINOR)) == 0
      && (fd = g_open (path, O_WRONLY, 0)) >= 0) {
    close (fd);
    char_device = path;
  } else {
    /* not root, or a tmp mounted nodev */
    g_unlink (path);
    g_free (path);
    char_device = g_strdup ("/dev/null");
  }
  return char_device;
}

static void
assert_char_device (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  if (!S_ISCHR (st.st_mode))
    g_error ("%s is no longer a character device", path);
}

/* -o a character device writes into it: it stays one (as root, renaming
 * over it would have made it a regular file; as another user the rename
 * fails). So do the .axm through a symlink to it and simnpu-annotate's
 * .pb. */
static void
test_device_output (void)
{
  const char *dev = null_device ();
  gchar *link_axm = tmp_path ("null-link.axm");
  gchar *link_pb = tmp_path ("null-link.pb");
  const char *to_dev[] = { compile_tool, ball_json, "-o", dev, "-q", NULL };
  const char *to_link[] = { compile_tool, ball_json, "-o", link_axm, "-q",
    NULL
  };
  const char *pb[] = { annotate_tool, debug_dir, runtime_csv, link_pb, NULL };
  GStatBuf st;
  result r;

  g_assert_cmpint (symlink (dev, link_axm), ==, 0);
  g_assert_cmpint (symlink (dev, link_pb), ==, 0);
  r = run (to_dev);
  expect_success (&r);
  result_clear (&r);
  assert_char_device (dev);
  r = run (to_link);
  expect_success (&r);
  result_clear (&r);
  g_assert_cmpint (g_lstat (link_axm, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  assert_char_device (dev);
  r = run (pb);
  expect_success (&r);
  result_clear (&r);
  g_assert_cmpint (g_lstat (link_pb, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  assert_char_device (dev);
  g_unlink (link_axm);
  g_unlink (link_pb);
  g_free (link_axm);
  g_free (link_pb);
}

typedef struct
{
  int fd;
  gint tool_done;
  GByteArray *data;
} fifo_reader;

/* Reads the FIFO until its writer closes it. Before any writer a FIFO
 * polls as nothing (not as hung up), so a tool that never opens it ends
 * the read once it has exited: the test cannot hang on it. */
static gpointer
drain_fifo (gpointer user_data)
{
  fifo_reader *r = user_data;
  struct pollfd pfd = { r->fd, POLLIN, 0 };
  guint8 buf[READ_CHUNK];

  for (;;) {
    gssize n;
    int ready = poll (&pfd, 1, POLL_MS);

    if (ready == 0) {
      if (g_atomic_int_get (&r->tool_done))
        break;
      continue;
    }
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      break;
    n = read (r->fd, buf, sizeof (buf));
    if (n > 0)
      g_byte_array_append (r->data, buf, (guint) n);
    else if (n == 0 || errno != EAGAIN)
      break;
  }
  return NULL;
}

/* -o a FIFO writes the model into it for its reader (the FIFO stays one):
 * the reader gets the bytes a regular file gets. */
static void
test_fifo_output (void)
{
  gchar *fifo = tmp_path ("model.fifo"), *axm = tmp_path ("regular.axm");
  const char *to_fifo[] = { compile_tool, ball_json, "-o", fifo, "-q", NULL };
  const char *to_file[] = { compile_tool, ball_json, "-o", axm, "-q", NULL };
  fifo_reader reader = { -1, 0, g_byte_array_new () };
  GThread *thread;
  gchar *expected;
  gsize expected_len;
  GStatBuf st;
  result r;

  g_assert_cmpint (mkfifo (fifo, FIFO_MODE), ==, 0);
  /* opened first, so that the tool's open finds a reader */
  reader.fd = g_open (fifo, O_RDONLY | O_NONBLOCK, 0);
  g_assert_cmpint (reader.fd, >=, 0);
  thread = g_thread_new ("fifo", drain_fifo, &reader);
  r = run (to_fifo);
  g_atomic_int_set (&reader.tool_done, 1);
  g_thread_join (thread);
  close (reader.fd);
  expect_success (&r);
  result_clear (&r);
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));

  r = run (to_file);
  expect_success (&r);
  result_clear (&r);
  expected = read_file (axm, &expected_len);
  g_assert_cmpmem (reader.data->data, reader.data->len, expected, expected_len);
  g_free (expected);
  g_byte_array_unref (reader.data);
  g_unlink (fifo);
  g_free (fifo);
  g_free (axm);
}

/* ------------------------------------------------------------------ */
/* simnpu-run-module                                                    */

/* --profile-host onto the module (also through a hard link) or onto an
 * --input=...=@FILE */
static void
test_run_module_profile_onto_inputs (void)
{
  gchar *module = g_strdup_printf ("--module=%s", ball_axm);
  gchar *linked = hard_link (ball_axm, "ball-link.axm");
  gchar *onto_module = g_strdup_printf ("--profile-host=%s", ball_axm);
  gchar *onto_link = g_strdup_printf ("--profile-host=%s", linked);
  gchar *input_file = tmp_path ("input.bin");
  gchar *input = g_strdup_printf ("--input=1x320x320x3xu8=@%s", input_file);
  gchar *onto_input = g_strdup_printf ("--profile-host=%s", input_file);
  gchar *zeros = g_malloc0 (320 * 320 * 3);
  const char *a[] = { run_tool, module, "--input=1x320x320x3xu8=0",
    "--time-scale", "0", onto_module, NULL
  };
  const char *b[] = { run_tool, module, "--input=1x320x320x3xu8=0",
    "--time-scale", "0", onto_link, NULL
  };
  const char *c[] = { run_tool, module, input, "--time-scale", "0",
    onto_input, NULL
  };

  g_assert_true (g_file_set_contents (input_file, zeros, 320 * 320 * 3, NULL));
  expect_refused (a, ball_axm, ball_axm);
  expect_refused (b, ball_axm, ball_axm);
  expect_refused (c, input_file, input_file);
  g_unlink (linked);
  g_unlink (input_file);
  g_free (zeros);
  g_free (module);
  g_free (linked);
  g_free (onto_module);
  g_free (onto_link);
  g_free (input_file);
  g_free (input);
  g_free (onto_input);
}

/* ------------------------------------------------------------------ */
/* simnpu-annotate                                                      */

/* OUT onto the runtime CSV (also through a hard link) or the debug
 * info's actions.csv */
static void
test_annotate_onto_inputs (void)
{
  gchar *linked = hard_link (runtime_csv, "runtime-link.csv");
  gchar *actions = g_build_filename (debug_dir, "actions.csv", NULL);
  const char *a[] = { annotate_tool, debug_dir, runtime_csv, runtime_csv,
    NULL
  };
  const char *b[] = { annotate_tool, debug_dir, runtime_csv, linked, NULL };
  const char *c[] = { annotate_tool, debug_dir, runtime_csv, actions, NULL };

  expect_refused (a, runtime_csv, runtime_csv);
  expect_refused (b, runtime_csv, runtime_csv);
  expect_refused (c, actions, actions);
  g_unlink (linked);
  g_free (linked);
  g_free (actions);
}

/* ------------------------------------------------------------------ */

static void
copy_file (const char *from, const char *to)
{
  gsize len;
  gchar *contents = read_file (from, &len);

  g_assert_true (g_file_set_contents (to, contents, (gssize) len, NULL));
  g_free (contents);
}

static void
make_png (const char *path)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGB,width=%d,height=%d ! pngenc ! "
      "filesink location=\"%s\"", PNG_SIZE, PNG_SIZE, path);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstBus *bus;
  GstMessage *msg;

  if (pipeline == NULL)
    g_error ("%s: %s", desc, error->message);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

/* The ball detector's JSON graph and weights, its .axm, debug info and a
 * runtime CSV; the TF.js model and its shard; a folder of one photo. */
static void
setup (void)
{
  gchar *src = g_build_filename (models_dir, "ball-detector.json", NULL);
  gchar *weights = g_build_filename (models_dir, "ball-detector.weights",
      NULL);
  gchar *text, *debug_arg, *module_arg, *profile_arg, *tfjs_dir;
  GError *error = NULL;
  result r;

  ball_json = tmp_path ("ball.json");
  ball_weights = tmp_path ("ball.weights");
  ball_axm = tmp_path ("ball.axm");
  debug_dir = tmp_path ("debug");
  runtime_csv = tmp_path ("runtime.csv");
  /* the copy names its weights by their new name */
  text = read_file (src, NULL);
  g_assert_nonnull (strstr (text, "\"ball-detector.weights\""));
  {
    GRegex *re = g_regex_new ("\"ball-detector\\.weights\"", 0, 0, NULL);
    gchar *renamed = g_regex_replace_literal (re, text, -1, 0,
        "\"ball.weights\"", 0, NULL);

    g_assert_true (g_file_set_contents (ball_json, renamed, -1, NULL));
    g_free (renamed);
    g_regex_unref (re);
  }
  g_free (text);
  copy_file (weights, ball_weights);

  debug_arg = g_strdup_printf ("--debug-info=%s", debug_dir);
  module_arg = g_strdup_printf ("--module=%s", ball_axm);
  profile_arg = g_strdup_printf ("--profile-host=%s", runtime_csv);
  {
    const char *compile[] = { compile_tool, ball_json, "-o", ball_axm,
      debug_arg, "-q", NULL
    };
    const char *run_module[] = { run_tool, module_arg,
      "--input=1x320x320x3xu8=0", "--time-scale", "0", profile_arg, NULL
    };

    r = run (compile);
    expect_success (&r);
    result_clear (&r);
    r = run (run_module);
    expect_success (&r);
    result_clear (&r);
  }

  tfjs_dir = tmp_path ("tfjs");
  g_assert_cmpint (g_mkdir (tfjs_dir, 0755), ==, 0);
  tfjs_json = g_build_filename (tfjs_dir, "model.json", NULL);
  tfjs_shard = g_build_filename (tfjs_dir, "group1-shard1of1.bin", NULL);
  g_assert_true (g_file_set_contents (tfjs_json, tfjs_model, -1, &error));
  g_assert_true (g_file_set_contents (tfjs_shard,
          (const gchar *) tfjs_weights, sizeof (tfjs_weights), &error));
  photos = tmp_path ("photos");
  g_assert_cmpint (g_mkdir (photos, 0755), ==, 0);
  photo = g_build_filename (photos, "a.png", NULL);
  make_png (photo);

  g_free (tfjs_dir);
  g_free (debug_arg);
  g_free (module_arg);
  g_free (profile_arg);
  g_free (src);
  g_free (weights);
}

int
main (int argc, char **argv)
{
  int ret;
  gchar *cmd;

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  if (argc != 5) {
    g_printerr ("usage: test-tools-output COMPILE RUN-MODULE ANNOTATE "
        "MODELS_DIR\n");
    return 1;
  }
  compile_tool = argv[1];
  run_tool = argv[2];
  annotate_tool = argv[3];
  models_dir = argv[4];
  tmp = g_dir_make_tmp ("simnpu-tools-output-XXXXXX", NULL);
  g_assert_nonnull (tmp);
  setup ();
  g_test_add_func ("/simnpu/tools-output/compile-onto-json-graph",
      test_compile_onto_json_graph);
  g_test_add_func ("/simnpu/tools-output/compile-onto-tfjs-inputs",
      test_compile_onto_tfjs_inputs);
  g_test_add_func ("/simnpu/tools-output/device-output", test_device_output);
  g_test_add_func ("/simnpu/tools-output/fifo-output", test_fifo_output);
  g_test_add_func ("/simnpu/tools-output/run-module-profile-onto-inputs",
      test_run_module_profile_onto_inputs);
  g_test_add_func ("/simnpu/tools-output/annotate-onto-inputs",
      test_annotate_onto_inputs);
  ret = g_test_run ();
  cmd = g_strdup_printf ("rm -rf '%s'", tmp);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmp);
  g_free (cmd);
  g_free (tmp);
  g_free (ball_json);
  g_free (ball_weights);
  g_free (ball_axm);
  g_free (debug_dir);
  g_free (runtime_csv);
  g_free (tfjs_json);
  g_free (tfjs_shard);
  g_free (photos);
  g_free (photo);
  g_free (char_device);
  return ret;
}
