/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-benchmark --what-if: a report's measured host rows projected onto
 * another configuration (gst/ax/gstaxprojection.c). A device profile is
 * turned into each model's modelled job time by loading the model on a
 * simulated device of that profile. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "axwhatif.h"

#include <gst/ax/gstaxmodelquery.h>
#include <simnpu/simnpu.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static gboolean
parse_uint (const gchar * key, const gchar * value, guint max, guint * out,
    gchar ** message)
{
  gchar *end = NULL;
  guint64 v;

  errno = 0;
  v = g_ascii_strtoull (value, &end, 10);
  if (*value == '\0' || *end != '\0' || errno != 0 || v < 1 || v > max) {
    *message = g_strdup_printf ("--what-if: %s must be a whole number from "
        "1 to %u, got \"%s\"", key, max, value);
    return FALSE;
  }
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_double (const gchar * key, const gchar * value, gdouble min,
    gdouble max, gdouble * out, gchar ** message)
{
  gchar *end = NULL;
  gdouble v;

  errno = 0;
  v = g_ascii_strtod (value, &end);
  if (*value == '\0' || *end != '\0' || errno != 0 || !(v >= min) ||
      !(v <= max)) {
    *message = g_strdup_printf ("--what-if: %s must be a number from %g to "
        "%g, got \"%s\"", key, min, max, value);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean
ax_what_if_parse (const gchar * spec, AxWhatIf * w, gchar ** message)
{
  gchar **parts;
  gboolean ok = TRUE;
  guint i;

  memset (w, 0, sizeof (*w));
  if (spec == NULL || *spec == '\0') {
    *message = g_strdup ("--what-if: expected KEY=VALUE[,KEY=VALUE...] of "
        "in-flight, cores, device, host-speed, time-scale");
    return FALSE;
  }
  parts = g_strsplit (spec, ",", -1);
  for (i = 0; ok && parts[i]; i++) {
    gchar *eq = strchr (parts[i], '=');
    const gchar *key = parts[i], *value;

    if (eq == NULL) {
      *message = g_strdup_printf ("--what-if: \"%s\" is not KEY=VALUE",
          parts[i]);
      ok = FALSE;
      break;
    }
    *eq = '\0';
    value = eq + 1;
    if (strcmp (key, "in-flight") == 0) {
      ok = parse_uint (key, value, GST_AX_PROJECTION_MAX_IN_FLIGHT,
          &w->config.in_flight, message);
    } else if (strcmp (key, "cores") == 0) {
      ok = parse_uint (key, value, GST_AX_PROJECTION_MAX_CORES,
          &w->config.cores, message);
    } else if (strcmp (key, "host-speed") == 0) {
      ok = parse_double (key, value, GST_AX_PROJECTION_MIN_HOST_SPEED,
          GST_AX_PROJECTION_MAX_HOST_SPEED, &w->config.host_speed, message);
    } else if (strcmp (key, "time-scale") == 0) {
      ok = parse_double (key, value, 1e-3, GST_AX_PROJECTION_MAX_TIME_SCALE,
          &w->config.time_scale, message);
    } else if (strcmp (key, "device") == 0) {
      simnpu_device *dev = NULL;
      simnpu_error err = { 0, };

      if (simnpu_device_open (value, &dev, &err) < 0) {
        *message = g_strdup_printf ("--what-if: device \"%s\": %s", value,
            err.message);
        ok = FALSE;
      } else {
        simnpu_device_close (dev);
        g_free (w->device);
        w->device = g_strdup (value);
      }
    } else {
      *message = g_strdup_printf ("--what-if: unknown key \"%s\" (expected "
          "in-flight, cores, device, host-speed or time-scale)", key);
      ok = FALSE;
    }
  }
  g_strfreev (parts);
  if (!ok)
    ax_what_if_clear (w);
  return ok;
}

void
ax_what_if_clear (AxWhatIf * w)
{
  g_free (w->device);
  g_strfreev (w->resources);
  memset (w, 0, sizeof (*w));
}

/* As axinference's job-resources (simnpu_model_get_job_resources()) */
static gchar *
model_resources (simnpu_model * model)
{
  gint n = simnpu_model_get_job_resources (model, NULL, 0);
  gchar *s;

  if (n < 0)
    return NULL;
  s = g_malloc ((gsize) n + 1);
  simnpu_model_get_job_resources (model, s, (gsize) n + 1);
  return s;
}

/* What each model's job asks of w->device's resources, and the device's
 * cores unless given. */
static gboolean
device_job_times (const GstAxReport * r, AxWhatIf * w, gchar ** message)
{
  simnpu_device *dev = NULL;
  simnpu_device_info info;
  simnpu_error err = { 0, };
  guint i;

  if (simnpu_device_open (w->device, &dev, &err) < 0) {
    *message = g_strdup_printf ("device \"%s\": %s", w->device, err.message);
    return FALSE;
  }
  if (simnpu_device_get_info (dev, &info) < 0) {
    *message = g_strdup_printf ("device \"%s\": no device info", w->device);
    simnpu_device_close (dev);
    return FALSE;
  }
  if (w->config.cores == 0)
    w->config.cores = info.n_cores;
  w->resources = g_new0 (gchar *, r->devices->len + 1);
  for (i = 0; i < r->devices->len; i++) {
    const GstAxReportDevice *d = gst_ax_report_get_device (r, i);
    const gchar *slash = strrchr (d->group, '/');
    gchar *path = gst_ax_model_find (slash ? slash + 1 : d->group, NULL);
    simnpu_model *model = NULL;

    if (path == NULL || simnpu_model_load (dev, path, &model, &err) < 0) {
      *message = g_strdup_printf ("model %s: %s", d->group, path ?
          err.message : "not found (set " GST_AX_MODEL_PATH_ENV ")");
      g_free (path);
      simnpu_device_close (dev);
      return FALSE;
    }
    w->resources[i] = model_resources (model);
    simnpu_model_unload (model);
    g_free (path);
  }
  simnpu_device_close (dev);
  w->config.resources = (const gchar * const *) w->resources;
  w->config.n_resources = r->devices->len;
  w->config.device = w->device;
  return TRUE;
}

gchar *
ax_what_if_project (const GstAxReport * r, AxWhatIf * w, gchar ** message)
{
  GstAxReportProjection *p;
  GError *err = NULL;
  gchar *text;

  if (w->device && w->resources == NULL && !device_job_times (r, w, message))
    return NULL;
  p = gst_ax_report_project (r, &w->config, &err);
  if (p == NULL) {
    *message = g_strdup (err->message);
    g_error_free (err);
    return NULL;
  }
  text = gst_ax_report_projection_to_text (p);
  gst_ax_report_projection_free (p);
  return text;
}
