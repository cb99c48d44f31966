/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-run-module: runs a compiled model on the simulated device.
 *
 *   simnpu-run-module --module=ball-detector.axm --input=1x128x128x3xu8=0 \
 *     --iterations 100 --in-flight 4 --profile-host=runtime.csv
 *
 * --input is DIMSxDTYPE=VALUE (every element VALUE, in the tensor's
 * quantised representation) or DIMSxDTYPE=@FILE (raw bytes). One --input
 * per model input, in order. Shape-only models run timing-only jobs and
 * take no --input.
 *
 * A model with host sections takes its public inputs (the preamble's are
 * f32): each job runs the preamble on this thread, submits the device
 * inputs it made, and runs the postamble on the device outputs when the
 * job completes; the outputs printed are the public ones. */

#include "simnpu-file.h"
#include "simnpu-private.h"
#include "tools-util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "simnpu-run-module"
#define EXIT_USAGE SIMNPU_TOOLS_EXIT_USAGE
#define DEFAULT_ITERATIONS 1
#define DEFAULT_IN_FLIGHT 1
#define MAX_IN_FLIGHT 64
#define MAX_ITERATIONS 10000000
/* simnpu_device_set_time_scale's range */
#define MAX_TIME_SCALE 1000.0
#define PREVIEW_VALUES 8

/* The runtime CSV may not replace the module or an --input=...=@FILE */
static int
check_profile_output (const char *profile, const char *module,
    char *const *input_args)
{
  GPtrArray *inputs = g_ptr_array_new ();
  int ret;
  unsigned i;

  g_ptr_array_add (inputs, (gpointer) module);
  for (i = 0; input_args && input_args[i]; i++) {
    const char *at = strstr (input_args[i], "=@");
    if (at != NULL)
      g_ptr_array_add (inputs, (gpointer) (at + 2));
  }
  ret = simnpu_tools_check_output (TOOL, "--profile-host", profile,
      (const char *const *) inputs->pdata, inputs->len);
  g_ptr_array_unref (inputs);
  return ret;
}

static int
parse_input (const char *arg, const simnpu_tensor_spec * spec, void *buf,
    char *msg, size_t msg_size)
{
  gchar **parts = g_strsplit (arg, "=", 2);
  gchar **dims = NULL;
  unsigned n, i;
  int ret = -1;
  int64_t want_dims[SIMNPU_MAX_DIMS];
  const char *dtype;

  if (parts[0] == NULL || parts[1] == NULL) {
    snprintf (msg, msg_size, "'%s': expected DIMSxDTYPE=VALUE, e.g. "
        "1x128x128x3xu8=0", arg);
    goto out;
  }
  dims = g_strsplit (parts[0], "x", -1);
  n = g_strv_length (dims);
  if (n < 2) {
    snprintf (msg, msg_size, "'%s': expected dimensions then a dtype", arg);
    goto out;
  }
  dtype = dims[n - 1];
  if (strcmp (dtype, simnpu_dtype_to_string (spec->dtype)) != 0) {
    snprintf (msg, msg_size, "'%s': dtype %s; the model input '%s' is %s",
        arg, dtype, spec->name, simnpu_dtype_to_string (spec->dtype));
    goto out;
  }
  if (n - 1 != spec->n_dims)
    goto bad_shape;
  for (i = 0; i + 1 < n; i++) {
    char *end = NULL;
    want_dims[i] = g_ascii_strtoll (dims[i], &end, 10);
    if (end == dims[i] || *end != '\0')
      goto bad_shape;
  }
  for (i = 0; i < spec->n_dims; i++)
    if (want_dims[i] != spec->dims[i])
      goto bad_shape;

  if (parts[1][0] == '@') {
    gchar *what = g_strdup_printf ("--input %s", spec->name);
    /* the message is printed by simnpu_tools_read_exact */
    ret = simnpu_tools_read_exact (TOOL, what, parts[1] + 1, buf,
        spec->size_bytes);
    g_free (what);
    if (ret < 0) {
      msg[0] = '\0';
      goto out;
    }
  } else {
    char *end = NULL;
    double v = g_ascii_strtod (parts[1], &end);
    double lo = spec->dtype == SIMNPU_DTYPE_U8 ? 0.0 :
        spec->dtype == SIMNPU_DTYPE_I8 ? INT8_MIN : -FLT_MAX;
    double hi = spec->dtype == SIMNPU_DTYPE_U8 ? UINT8_MAX :
        spec->dtype == SIMNPU_DTYPE_I8 ? INT8_MAX : FLT_MAX;
    bool integral = spec->dtype != SIMNPU_DTYPE_F32;
    size_t k, count = spec->size_bytes / simnpu_dtype_size (spec->dtype);
    /* a value the dtype cannot hold was clamped (and nan cast to an
     * integer is undefined): refuse it instead */
    if (end == parts[1] || *end != '\0' || !isfinite (v) || v < lo
        || v > hi || (integral && v != floor (v))) {
      snprintf (msg, msg_size, "'%s': value '%s' is not %s in [%g, %g] "
          "(%s)", arg, parts[1], integral ? "an integer" : "a number", lo,
          hi, simnpu_dtype_to_string (spec->dtype));
      goto out;
    }
    for (k = 0; k < count; k++) {
      if (spec->dtype == SIMNPU_DTYPE_U8)
        ((uint8_t *) buf)[k] = (uint8_t) v;
      else if (spec->dtype == SIMNPU_DTYPE_I8)
        ((int8_t *) buf)[k] = (int8_t) v;
      else
        ((float *) buf)[k] = (float) v;
    }
  }
  ret = 0;
  goto out;

bad_shape:
  {
    GString *s = g_string_new ("");
    for (i = 0; i < spec->n_dims; i++)
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "x" : "",
          (gint64) spec->dims[i]);
    snprintf (msg, msg_size, "'%s': shape does not match the model input "
        "'%s', expected %sx%s", arg, spec->name, s->str,
        simnpu_dtype_to_string (spec->dtype));
    g_string_free (s, TRUE);
  }
out:
  g_strfreev (parts);
  g_strfreev (dims);
  return ret;
}

static void
print_output (const simnpu_tensor_spec * spec, const void *data)
{
  size_t count = spec->size_bytes / simnpu_dtype_size (spec->dtype), k;
  double mn = INFINITY, mx = -INFINITY, sum = 0.0;
  unsigned i;

  printf ("output %s: %s [", spec->name, simnpu_dtype_to_string (spec->dtype));
  for (i = 0; i < spec->n_dims; i++)
    printf ("%s%" G_GINT64_FORMAT, i ? "," : "", (gint64) spec->dims[i]);
  printf ("] scale %g zero point %d\n", spec->scale, spec->zero_point);
  for (k = 0; k < count; k++) {
    double v;
    if (spec->dtype == SIMNPU_DTYPE_U8)
      v = ((const uint8_t *) data)[k];
    else if (spec->dtype == SIMNPU_DTYPE_I8)
      v = ((const int8_t *) data)[k];
    else
      v = ((const float *) data)[k];
    v = spec->scale * (v - spec->zero_point);
    mn = MIN (mn, v);
    mx = MAX (mx, v);
    sum += v;
  }
  printf ("  dequantised: min %g max %g mean %g; first:", mn, mx,
      count ? sum / count : 0.0);
  for (k = 0; k < MIN (count, PREVIEW_VALUES); k++) {
    double v = spec->dtype == SIMNPU_DTYPE_U8 ? ((const uint8_t *) data)[k] :
        spec->dtype == SIMNPU_DTYPE_I8 ? ((const int8_t *) data)[k] :
        ((const float *) data)[k];
    printf (" %g", spec->scale * (v - spec->zero_point));
  }
  printf ("\n");
}

/* Runs a host section and adds its wall time to @ns. The preamble reads
 * public inputs (@pub_in) and writes the device inputs (@dev_in) it is
 * bound to; the postamble reads the device outputs (@dev_out) it is bound
 * to and writes public outputs (@pub_out). */
static int
run_section (simnpu_host_section * s, void *const *pub_in,
    const simnpu_input_buffer * dev_in, const simnpu_output_buffer * dev_out,
    void *const *pub_out, uint64_t * ns, simnpu_error * error)
{
  simnpu_host_section_info info;
  simnpu_tensor_spec spec;
  const void *in[SIMNPU_MAX_IO];
  void *out[SIMNPU_MAX_IO];
  unsigned j, bound;
  uint64_t t0;
  int ret;

  simnpu_host_section_get_info (s, &info);
  for (j = 0; j < info.n_inputs; j++) {
    simnpu_host_section_get_input (s, j, &spec, &bound);
    in[j] = info.kind == SIMNPU_SECTION_PREAMBLE ? pub_in[bound] :
        dev_out[bound].data;
  }
  for (j = 0; j < info.n_outputs; j++) {
    simnpu_host_section_get_output (s, j, &spec, &bound);
    /* the device inputs the preamble writes are this tool's buffers */
    out[j] = info.kind == SIMNPU_SECTION_PREAMBLE ?
        (void *) dev_in[bound].data : pub_out[bound];
  }
  t0 = simnpu__monotonic_ns ();
  ret = simnpu_host_section_run (s, in, out, error);
  *ns += simnpu__monotonic_ns () - t0;
  return ret;
}

int
main (int argc, char **argv)
{
  gchar *module = NULL, *device = NULL, *profile = NULL;
  gchar **input_args = NULL;
  gchar *iterations_arg = NULL, *in_flight_arg = NULL, *time_scale_arg = NULL;
  gint iterations = DEFAULT_ITERATIONS, in_flight = DEFAULT_IN_FLIGHT;
  gdouble time_scale = 1.0;
  int64_t v64;
  GOptionEntry entries[] = {
    {"module", 'm', 0, G_OPTION_ARG_FILENAME, &module,
        "Compiled model (.axm)", "FILE"},
    {"input", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &input_args,
        "Input tensor, DIMSxDTYPE=VALUE or DIMSxDTYPE=@FILE (repeat per "
          "input)", "SPEC"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
          "Device profile (default: the one the module was compiled for)",
        "PROFILE"},
    {"iterations", 'n', 0, G_OPTION_ARG_STRING, &iterations_arg,
        "Jobs to run, 1 to 10000000 (default 1)", "N"},
    {"in-flight", 'f', 0, G_OPTION_ARG_STRING, &in_flight_arg,
        "Jobs outstanding at once, 1 to 64 (default 1)", "N"},
    {"time-scale", 't', 0, G_OPTION_ARG_STRING, &time_scale_arg,
        "Wall ns per device ns, 0 to 1000: 1 real time, 0 as fast as "
          "computed (default 1)", "S"},
    {"profile-host", 0, 0, G_OPTION_ARG_FILENAME, &profile,
        "Write the runtime CSV (dispatch_name, invocation_id, action_id, "
          "timestamp_us, event)", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- run a model on the "
      "simulated NPU");
  GError *err = NULL;
  simnpu_error error = { 0 };
  simnpu_device *dev = NULL;
  simnpu_model *model = NULL;
  simnpu_model_info info;
  simnpu_device_info dinfo;
  simnpu_counters c;
  simnpu_input_buffer in_bufs[SIMNPU_MAX_IO];
  simnpu_output_buffer *out_bufs = NULL;
  simnpu_tensor_spec spec;
  simnpu_job **jobs = NULL;
  void *in_data[SIMNPU_MAX_IO] = { NULL };
  void *made_in[SIMNPU_MAX_IO] = { NULL };
  void **pub_out = NULL, **made_out = NULL;
  simnpu_host_section *pre = NULL, *post = NULL;
  simnpu_binding b;
  uint64_t pre_ns = 0, post_ns = 0;
  unsigned n_in = 0, n_out = 0, n_din = 0, n_dout = 0, i, n_inputs_given;
  int status = EXIT_FAILURE, ret, profile_rc = 0;
  gint submitted = 0, completed = 0;
  uint64_t t_start, t_end, first_dev = G_MAXUINT64, last_dev = 0;
  double sum_latency_ns = 0.0, sum_device_ns = 0.0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "simnpu-run-module: %s\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (module == NULL || argc != 1) {
    fprintf (stderr, "simnpu-run-module: expected --module=FILE and no "
        "other arguments (see --help)\n");
    status = EXIT_USAGE;
    goto out;
  }
  if (iterations_arg
      && simnpu_tools_parse_int (TOOL, "--iterations", iterations_arg, 1,
          MAX_ITERATIONS, &v64) < 0) {
    status = EXIT_USAGE;
    goto out;
  }
  if (iterations_arg)
    iterations = (gint) v64;
  if (in_flight_arg
      && simnpu_tools_parse_int (TOOL, "--in-flight", in_flight_arg, 1,
          MAX_IN_FLIGHT, &v64) < 0) {
    status = EXIT_USAGE;
    goto out;
  }
  if (in_flight_arg)
    in_flight = (gint) v64;
  if (time_scale_arg && simnpu_tools_parse_double (TOOL, "--time-scale",
          time_scale_arg, 0.0, MAX_TIME_SCALE, &time_scale) < 0) {
    status = EXIT_USAGE;
    goto out;
  }
  if (check_profile_output (profile, module, input_args) < 0) {
    status = EXIT_USAGE;
    goto out;
  }

  if (device == NULL) {
    /* default to the device the module was compiled for (a module that
     * cannot be read is reported by the load below) */
    gchar *contents = NULL;
    gsize len = 0;
    simnpu__graph *g = NULL;
    simnpu__schedule s = { 0 };
    if (simnpu__file_read (module, "model", SIMNPU_FILE_MAX_WEIGHTS_BYTES,
            &contents, &len, NULL)
        && simnpu__axm_read (contents, len, &g, &s, NULL) == 0)
      device = g_strdup (s.spec);
    simnpu__graph_free (g);
    simnpu__schedule_clear (&s);
    g_free (contents);
  }
  if (simnpu_device_open (device, &dev, &error) < 0
      || simnpu_device_set_time_scale (dev, time_scale) < 0
      || simnpu_model_load (dev, module, &model, &error) < 0) {
    if (error.code == 0) {
      error.code = SIMNPU_EINVAL;
      snprintf (error.message, sizeof (error.message), "--time-scale %g "
          "refused by the device", time_scale);
    }
    fprintf (stderr, "simnpu-run-module: %s (%s)\n", error.message,
        simnpu_strerror (error.code));
    goto out;
  }
  simnpu_model_get_info (model, &info);
  simnpu_device_get_info (dev, &dinfo);
  n_inputs_given = input_args ? g_strv_length (input_args) : 0;
  if (!info.estimate_only) {
    n_in = info.n_inputs;
    n_out = info.n_outputs;
    n_din = info.n_device_inputs;
    n_dout = info.n_device_outputs;
    pre = simnpu_model_get_host_section (model, SIMNPU_SECTION_PREAMBLE);
    post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
    if (n_inputs_given != n_in) {
      fprintf (stderr, "simnpu-run-module: %u --input given; the model "
          "has %u inputs:", n_inputs_given, n_in);
      for (i = 0; i < n_in; i++) {
        simnpu_model_get_input (model, i, &spec);
        fprintf (stderr, " %s", spec.name);
      }
      fprintf (stderr, "\n");
      goto out;
    }
  } else if (n_inputs_given > 0) {
    printf ("note: %s is shape-only; the inputs are not used (timing-only "
        "jobs)\n", info.name);
  }
  for (i = 0; i < n_in; i++) {
    char msg[512];
    simnpu_model_get_input (model, i, &spec);
    in_data[i] = g_malloc0 (spec.size_bytes);
    if (parse_input (input_args[i], &spec, in_data[i], msg, sizeof (msg)) < 0) {
      if (msg[0] != '\0')
        fprintf (stderr, "simnpu-run-module: --input %s\n", msg);
      status = EXIT_USAGE;
      goto out;
    }
  }
  /* device inputs: the public ones passed as is, the rest the preamble's */
  for (i = 0; i < n_din; i++) {
    simnpu_model_get_device_input (model, i, &spec);
    made_in[i] = g_malloc0 (spec.size_bytes);
    in_bufs[i].data = made_in[i];
    in_bufs[i].size_bytes = spec.size_bytes;
  }
  for (i = 0; i < n_in; i++) {
    simnpu_model_get_input_binding (model, i, &b);
    if (b.section == SIMNPU_SECTION_DEVICE)
      in_bufs[b.index].data = in_data[i];
  }
  /* one set of device and public output buffers per in-flight slot; a
   * public output the postamble does not make is a device output */
  out_bufs = g_new0 (simnpu_output_buffer, (size_t) in_flight *
      MAX (n_dout, 1));
  made_out = g_new0 (void *, (size_t) in_flight * MAX (n_out, 1));
  pub_out = g_new0 (void *, (size_t) in_flight * MAX (n_out, 1));
  for (int slot = 0; slot < in_flight; slot++) {
    for (i = 0; i < n_dout; i++) {
      simnpu_model_get_device_output (model, i, &spec);
      out_bufs[slot * n_dout + i].data = g_malloc0 (spec.size_bytes);
      out_bufs[slot * n_dout + i].size_bytes = spec.size_bytes;
    }
    for (i = 0; i < n_out; i++) {
      simnpu_model_get_output (model, i, &spec);
      simnpu_model_get_output_binding (model, i, &b);
      if (b.section == SIMNPU_SECTION_DEVICE) {
        pub_out[slot * n_out + i] = out_bufs[slot * n_dout + b.index].data;
      } else {
        made_out[slot * n_out + i] = g_malloc0 (spec.size_bytes);
        pub_out[slot * n_out + i] = made_out[slot * n_out + i];
      }
    }
  }
  jobs = g_new0 (simnpu_job *, in_flight);
  if (profile && simnpu_device_start_host_profile (dev, profile, &error) < 0) {
    fprintf (stderr, "simnpu-run-module: %s\n", error.message);
    goto out;
  }

  t_start = simnpu__monotonic_ns ();
  while (completed < iterations) {
    while (submitted < iterations && submitted - completed < in_flight) {
      int slot = submitted % in_flight;
      if (pre && run_section (pre, in_data, in_bufs, NULL, NULL, &pre_ns,
              &error) < 0) {
        fprintf (stderr, "simnpu-run-module: preamble: %s\n", error.message);
        goto out;
      }
      ret = simnpu_job_submit (model, n_din ? in_bufs : NULL, n_din,
          n_dout ? &out_bufs[slot * n_dout] : NULL, n_dout, NULL, NULL,
          &jobs[slot], &error);
      if (ret < 0) {
        fprintf (stderr, "simnpu-run-module: submit: %s\n", error.message);
        goto out;
      }
      submitted++;
    }
    {
      int slot = completed % in_flight;
      simnpu_job_result r;
      ret = simnpu_job_wait (jobs[slot], -1, &r);
      simnpu_job_free (jobs[slot]);
      jobs[slot] = NULL;
      if (ret < 0) {
        fprintf (stderr, "simnpu-run-module: job %" G_GUINT64_FORMAT
            " failed: %s\n", (guint64) r.job_id, simnpu_strerror (ret));
        goto out;
      }
      if (post && run_section (post, NULL, NULL, &out_bufs[slot * n_dout],
              &pub_out[slot * n_out], &post_ns, &error) < 0) {
        fprintf (stderr, "simnpu-run-module: postamble: %s\n", error.message);
        goto out;
      }
      sum_latency_ns += (double) (r.complete_ns - r.submit_ns);
      sum_device_ns += (double) (r.device_end_ns - r.device_start_ns);
      first_dev = MIN (first_dev, r.device_start_ns);
      last_dev = MAX (last_dev, r.device_end_ns);
      if (completed + 1 == iterations)
        for (i = 0; i < n_out; i++) {
          simnpu_model_get_output (model, i, &spec);
          print_output (&spec, pub_out[slot * n_out + i]);
        }
      completed++;
    }
  }
  t_end = simnpu__monotonic_ns ();
  profile_rc = simnpu_device_stop_host_profile (dev);
  simnpu_device_get_counters (dev, &c);

  printf ("model %s on %s%s\n", info.name, dinfo.profile,
      info.rescheduled ? " (schedule rebuilt for this device)" : "");
  printf ("device time per job: %.1f us modelled (idle device); %.1f us "
      "mean on the device timeline at time scale %g\n",
      info.device_ns / 1000.0, sum_device_ns / completed / 1000.0, time_scale);
  printf ("latency per job: %.1f us mean (submit to completion)\n",
      sum_latency_ns / completed / 1000.0);
  if (pre || post)
    printf ("host sections per job: preamble %.1f us, postamble %.1f us "
        "mean (wall, this thread)\n", pre_ns / 1000.0 / completed,
        post_ns / 1000.0 / completed);
  printf ("throughput at in-flight %d: %.1f jobs/s wall", in_flight,
      completed * 1e9 / (double) (t_end - t_start));
  if (time_scale > 0.0 && last_dev > first_dev)
    printf (", %.1f jobs/s on the device timeline", completed * 1e9 /
        (double) (last_dev - first_dev) * time_scale);
  printf ("\n");
  for (i = 0; i < c.n_resources; i++)
    printf ("  %-8s busy %10.1f us\n", dinfo.resources[i].name,
        c.resource_busy_ns[i] / 1000.0);
  printf ("jobs %" G_GUINT64_FORMAT ", DMA %" G_GUINT64_FORMAT " bytes, "
      "host copy %.1f us, simulator CPU %.1f ms, lag %.1f us over %"
      G_GUINT64_FORMAT " jobs\n", (guint64) c.jobs_done,
      (guint64) c.dma_bytes, c.host_copy_ns / 1000.0, c.sim_cpu_ns / 1e6,
      c.lag_ns / 1000.0, (guint64) c.lagged_jobs);
  if (profile && profile_rc < 0) {
    /* the figures above are fine; the file the user asked for is not */
    fprintf (stderr, "simnpu-run-module: could not write the runtime "
        "profile %s: %s\n", profile, simnpu_strerror (profile_rc));
    goto out;
  }
  if (profile)
    printf ("runtime profile: %s\n", profile);
  status = EXIT_SUCCESS;

out:
  if (jobs)
    for (int slot = 0; slot < in_flight; slot++)
      if (jobs[slot]) {
        simnpu_job_cancel (jobs[slot]);
        simnpu_job_wait (jobs[slot], -1, NULL);
        simnpu_job_free (jobs[slot]);
      }
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  if (out_bufs)
    for (i = 0; i < (unsigned) in_flight * n_dout; i++)
      g_free (out_bufs[i].data);
  if (made_out)
    for (i = 0; i < (unsigned) in_flight * n_out; i++)
      g_free (made_out[i]);
  g_free (out_bufs);
  g_free (made_out);
  g_free (pub_out);
  for (i = 0; i < SIMNPU_MAX_IO; i++)
    g_free (made_in[i]);
  g_free (jobs);
  for (i = 0; i < SIMNPU_MAX_IO; i++)
    g_free (in_data[i]);
  g_free (module);
  g_free (device);
  g_free (profile);
  g_free (iterations_arg);
  g_free (in_flight_arg);
  g_free (time_scale_arg);
  g_strfreev (input_args);
  return status;
}
