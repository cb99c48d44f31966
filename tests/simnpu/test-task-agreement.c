/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Task agreement of int8 with float (sim-npu/tools/task-agree.h): the
 * measure itself on outputs written by hand, then two real models
 * compiled as the build compiles them, with the six face-api photos as
 * calibration and SIMNPU_COMPILE_DUMP_OUTPUTS: emotion's top-1 class and
 * BlazeFace's detections, int8 against float. The compile is
 * deterministic, so the figures are too.
 *
 *   test-simnpu-task-agreement SIMNPU_COMPILE MODELS_SRC_DIR
 *
 * The real models are skipped without the data dir (GST_AX_DATA_DIR). */

#include "task-agree.h"

#include <glib.h>
#include <glib/gstdio.h>

static const char *compiler, *models_src;

static void
write_floats (const gchar * dir, const gchar * name, const float *v, gsize n)
{
  gchar *file = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (file, (const gchar *) v,
          (gssize) (n * sizeof (float)), NULL));
  g_free (file);
}

/* A dump written by hand: image 0 agrees, image 1 does not, for each
 * kind; the measure must tell them apart. */
static void
test_measure (void)
{
  gchar *dir = g_dir_make_tmp ("gst-ax-task-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "outputs.txt", NULL);
  const float cls_f[3] = { 0.1f, 0.7f, 0.2f };
  const float cls_q0[3] = { 0.12f, 0.66f, 0.22f };
  const float cls_q1[3] = { 0.5f, 0.3f, 0.2f };
  /* 2 anchors: scores (logits) and boxes cx, cy, w, h */
  const float sc_f[2] = { 3.0f, -5.0f };
  const float sc_q0[2] = { 2.5f, -4.0f };
  const float sc_q1[2] = { 2.5f, -4.0f };
  const float bx_f[8] = { 10, 10, 8, 8, 0, 0, 1, 1 };
  const float bx_q0[8] = { 10.5f, 10, 8, 8, 0, 0, 1, 1 };
  const float bx_q1[8] = { 20, 10, 8, 8, 0, 0, 1, 1 };
  const float pt_f[4] = { 10, 10, 5, 5 };
  const float pt_q0[4] = { 10, 13, 5, 9 };
  task_dump d;
  task_figure f = { 0 };
  gchar *text;

  g_assert_true (g_file_set_contents (file, "0 cls 1 3\n1 score 1 2 1\n"
          "2 box 1 2 4\n3 pts 1 4\nimages 2\n", -1, NULL));
  write_floats (dir, "0-0.float.f32", cls_f, 3);
  write_floats (dir, "0-0.int8.f32", cls_q0, 3);
  write_floats (dir, "1-0.float.f32", cls_f, 3);
  write_floats (dir, "1-0.int8.f32", cls_q1, 3);
  write_floats (dir, "0-1.float.f32", sc_f, 2);
  write_floats (dir, "0-1.int8.f32", sc_q0, 2);
  write_floats (dir, "1-1.float.f32", sc_f, 2);
  write_floats (dir, "1-1.int8.f32", sc_q1, 2);
  write_floats (dir, "0-2.float.f32", bx_f, 8);
  write_floats (dir, "0-2.int8.f32", bx_q0, 8);
  write_floats (dir, "1-2.float.f32", bx_f, 8);
  write_floats (dir, "1-2.int8.f32", bx_q1, 8);
  write_floats (dir, "0-3.float.f32", pt_f, 4);
  write_floats (dir, "0-3.int8.f32", pt_q0, 4);
  write_floats (dir, "1-3.float.f32", pt_f, 4);
  write_floats (dir, "1-3.int8.f32", pt_f, 4);
  g_assert_true (task_dump_read (dir, &d));
  g_assert_cmpuint (d.n_images, ==, 2);

  g_assert_true (task_measure (dir, &d, "class @1x3", &f));
  g_assert_cmpuint (f.matched, ==, 1);
  g_assert_cmpuint (f.total, ==, 2);
  text = task_figure_text (&f);
  g_assert_cmpstr (text, ==, "top-1 1/2");
  g_free (text);

  memset (&f, 0, sizeof (f));
  g_assert_true (task_measure (dir, &d, "ssd score box logit", &f));
  /* anchor 0 on both images; image 1's box moved by more than its size */
  g_assert_cmpuint (f.total, ==, 2);
  g_assert_cmpuint (f.matched, ==, 1);

  memset (&f, 0, sizeof (f));
  g_assert_true (task_measure (dir, &d, "points pts 2 2", &f));
  /* image 0: points 3 and 4 apart, times 2 pixels; image 1: 0 */
  g_assert_cmpuint (f.n, ==, 4);
  g_assert_cmpfloat_with_epsilon (f.sum / f.n, (6.0 + 8.0) / 4, 1e-6);

  memset (&f, 0, sizeof (f));
  g_assert_false (task_measure (dir, &d, "class @1x9", &f));
  g_assert_false (task_measure (dir, &d, "nothing cls", &f));

  task_dump_clear (&d);
  g_free (file);
  task_dump_remove (dir);
  g_free (dir);
}

/* Compiles MODEL (data/human) with ARGS and the six photos as
 * calibration, its outputs dumped; measures TASK on them */
static void
compile_and_measure (const gchar * model, const gchar * const *args,
    const gchar * task, task_figure * f)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *src = g_build_filename (data, "human", model, NULL);
  gchar *photos = g_build_filename (data, "face-api", NULL);
  gchar *dir = g_dir_make_tmp ("gst-ax-task-XXXXXX", NULL);
  gchar *axm = g_build_filename (dir, "model.axm", NULL);
  gchar *calib = g_strdup_printf ("--calibration=%s", photos);
  gchar **envp = g_environ_setenv (g_get_environ (),
      "SIMNPU_COMPILE_DUMP_OUTPUTS", dir, TRUE);
  GPtrArray *argv = g_ptr_array_new ();
  gchar *err = NULL;
  gint status = 0;
  task_dump d;
  guint i;

  g_ptr_array_add (argv, (gpointer) compiler);
  g_ptr_array_add (argv, src);
  g_ptr_array_add (argv, (gpointer) "-o");
  g_ptr_array_add (argv, axm);
  g_ptr_array_add (argv, (gpointer) "--quiet");
  g_ptr_array_add (argv, calib);
  for (i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, envp,
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s: %s", model, err);
  g_assert_true (task_dump_read (dir, &d));
  g_assert_cmpuint (d.n_images, ==, 6);
  g_assert_true (task_measure (dir, &d, task, f));
  task_dump_clear (&d);
  task_dump_remove (dir);
  g_ptr_array_free (argv, TRUE);
  g_strfreev (envp);
  g_free (err);
  g_free (calib);
  g_free (axm);
  g_free (dir);
  g_free (photos);
  g_free (src);
}

static gboolean
have_models (void)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *f;
  gboolean ok;

  if (data == NULL) {
    g_test_skip ("GST_AX_DATA_DIR is not set (run scripts/fetch-data.sh)");
    return FALSE;
  }
  f = g_build_filename (data, "human", "blazeface.json", NULL);
  ok = g_file_test (f, G_FILE_TEST_EXISTS);
  g_free (f);
  if (!ok)
    g_test_skip ("the real models are not in GST_AX_DATA_DIR");
  return ok;
}

static void
test_emotion (void)
{
  gchar *labels, *decoder;
  task_figure f = { 0 };

  if (!have_models ())
    return;
  labels = g_build_filename (models_src, "emotion.labels", NULL);
  decoder = g_build_filename (models_src, "emotion.decoder.json", NULL);
  {
    const gchar *args[] = { "--preprocess",
      "scale=1/255,mean=0.5,std=0.5,color=gray,resize=stretch",
      "--labels", labels, "--decoder", decoder, NULL
    };
    compile_and_measure ("emotion.json", args, "class @1x7", &f);
  }
  g_test_message ("emotion: top-1 %u of %u", f.matched, f.total);
  g_assert_cmpuint (f.total, ==, 6);
  g_assert_cmpuint (f.matched, ==, 6);
  g_free (labels);
  g_free (decoder);
}

static void
test_blazeface (void)
{
  task_figure f = { 0 }, g = { 0 };

  if (!have_models ())
    return;
  {
    const gchar *args[] = { "--preprocess",
      "scale=1/127.5,mean=1,std=1,resize=letterbox,fill=0",
      "--outputs", "Identity,Identity_1,Identity_2,Identity_3",
      "--logit-outputs", "Identity,Identity_1",
      "--foreground", "Identity,Identity_1:0.5:logit", NULL
    };
    compile_and_measure ("blazeface.json", args,
        "ssd Identity Identity_2 logit", &f);
    compile_and_measure ("blazeface.json", args,
        "ssd Identity_1 Identity_3 logit", &g);
  }
  g_test_message ("blazeface: %u of %u and %u of %u detections found again",
      f.matched, f.total, g.matched, g.total);
  /* the photos hold 22 faces, each found at several anchors (76 in all
   * when this was written, 73 found again) */
  g_assert_cmpuint (f.total + g.total, >=, 22);
  g_assert_cmpuint ((f.matched + g.matched) * 100, >=,
      90 * (f.total + g.total));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 3) {
    g_printerr ("usage: %s SIMNPU_COMPILE MODELS_SRC_DIR\n", argv[0]);
    return 2;
  }
  compiler = argv[1];
  models_src = argv[2];
  g_test_add_func ("/simnpu/task-agreement/measure", test_measure);
  g_test_add_func ("/simnpu/task-agreement/emotion", test_emotion);
  g_test_add_func ("/simnpu/task-agreement/blazeface", test_blazeface);
  return g_test_run ();
}
