/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Device profiles as data. Every parameter names its source in the table
 * below; docs/sim-npu.md repeats the table with the reasoning. */

#include "device/device.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIB (G_GUINT64_CONSTANT (1) << 20)
#define KIB (G_GUINT64_CONSTANT (1) << 10)
#define GB_PER_S 1e9

static const simnpu__profile simnpu__profiles[] = {
  {
        .name = "metis",
        .description = "Axelera Metis-like AIPU: 4 cores, shared DMA",
        /* public: Metis has 4 AIPU cores (Axelera Metis product brief) */
        .cores = 4,
        /* public: 800 MHz AIPU clock (Axelera, ISSCC 2024 Metis paper) */
        .clock_mhz = 800.0,
        /* derived from public figures: 214 TOPS / 4 cores / 2 ops per MAC
         * / 800 MHz = 33.4k MAC/cycle; rounded to a 512x64 array */
        .macs_per_cycle = 32768,
        /* assumption: element-wise vector unit width per core */
        .vector_bytes_per_cycle = 64,
        /* assumption: sustained fraction of peak MACs on conv layers */
        .compute_efficiency = 0.35,
        /* public: 4 MiB L1 per AIPU core (Axelera Metis product brief) */
        .onchip_memory_bytes = 4 * MIB,
        /* public: PCIe Gen3 x4 host link, ~3.9 GB/s raw; 3.2 GB/s is the
         * assumed achievable part */
        .dma_bytes_per_s = 3.2 * GB_PER_S,
        /* assumption: one host core's memcpy into pinned DMA memory */
        .host_copy_bytes_per_s = 8.0 * GB_PER_S,
        /* assumption: driver submit, doorbell and interrupt per job */
        .job_overhead_ns = 120000,
        /* assumption: per-layer setup of the core's command stream */
        .op_overhead_cycles = 1200,
        .split_dma = false,
        .has_cdma_css = false,
      },
  {
        .name = "torq",
        .description = "Synaptics Torq-like NPU: 2 slices, DMA in/out, "
        "CDMA, CSS",
        /* public: the Torq NPU is built from compute slices; 2 in the
         * Astra SL2610 configuration (Synaptics) */
        .cores = 2,
        /* assumption: NPU clock of the SL2610 class SoC */
        .clock_mhz = 1000.0,
        /* derived from public figure: ~1 TOPS int8 (Synaptics SL2610
         * product brief) / 2 slices / 2 ops per MAC / 1 GHz */
        .macs_per_cycle = 256,
        /* assumption */
        .vector_bytes_per_cycle = 32,
        /* assumption */
        .compute_efficiency = 0.6,
        /* assumption: local memory per slice */
        .onchip_memory_bytes = 512 * KIB,
        /* assumption: LPDDR4 share available to each NPU DMA engine */
        .dma_bytes_per_s = 4.0 * GB_PER_S,
        /* assumption: on-SoC host, buffers shared, copy at memcpy speed */
        .host_copy_bytes_per_s = 6.0 * GB_PER_S,
        /* assumption: CSS job setup seen from the host */
        .job_overhead_ns = 30000,
        /* assumption */
        .op_overhead_cycles = 800,
        .split_dma = true,
        .has_cdma_css = true,
      },
};

static const char *const simnpu__profile_name_list[] = {
  "metis", "torq", NULL
};

/**
 * simnpu_profile_names:
 *
 * Returns: the NULL-terminated list of built-in profile names
 */
const char *const *
simnpu_profile_names (void)
{
  return simnpu__profile_name_list;
}

static int
parse_double (const char *key, const char *value, double min, double max,
    double *out, simnpu_error * error)
{
  char *end = NULL;
  double v;

  errno = 0;
  v = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || errno != 0 || !(v >= min)
      || !(v <= max))
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "profile override '%s=%s': expected a number in [%g, %g]", key,
        value, min, max);
  *out = v;
  return 0;
}

static int
parse_u64 (const char *key, const char *value, uint64_t min, uint64_t max,
    uint64_t * out, simnpu_error * error)
{
  char *end = NULL;
  guint64 v;

  errno = 0;
  if (value[0] == '-' || value[0] == '\0')
    goto bad;
  v = g_ascii_strtoull (value, &end, 10);
  if (*end != '\0' || errno != 0 || v < min || v > max)
    goto bad;
  *out = v;
  return 0;

bad:
  return simnpu__set_error (error, SIMNPU_EINVAL,
      "profile override '%s=%s': expected an integer in [%" G_GUINT64_FORMAT
      ", %" G_GUINT64_FORMAT "]", key, value, (guint64) min, (guint64) max);
}

#define MAX_CORES 8
#define MAX_CLOCK_MHZ 10000.0
#define MAX_MACS_PER_CYCLE (1u << 20)
#define MAX_BYTES_PER_S 1e12
#define MAX_OVERHEAD_NS G_GUINT64_CONSTANT (1000000000)
#define MAX_MEMORY_BYTES (G_GUINT64_CONSTANT (1) << 36)

static int
apply_override (simnpu__profile * p, const char *key, const char *value,
    simnpu_error * error)
{
  uint64_t u = 0;
  double d = 0;
  int ret;

  if (strcmp (key, "cores") == 0 || strcmp (key, "slices") == 0) {
    ret = parse_u64 (key, value, 1, MAX_CORES, &u, error);
    p->cores = (unsigned) u;
  } else if (strcmp (key, "clock_mhz") == 0) {
    ret = parse_double (key, value, 1.0, MAX_CLOCK_MHZ, &d, error);
    p->clock_mhz = d;
  } else if (strcmp (key, "macs_per_cycle") == 0) {
    ret = parse_u64 (key, value, 1, MAX_MACS_PER_CYCLE, &u, error);
    p->macs_per_cycle = (uint32_t) u;
  } else if (strcmp (key, "vector_bytes_per_cycle") == 0) {
    ret = parse_u64 (key, value, 1, MAX_MACS_PER_CYCLE, &u, error);
    p->vector_bytes_per_cycle = (uint32_t) u;
  } else if (strcmp (key, "compute_efficiency") == 0) {
    ret = parse_double (key, value, 0.01, 1.0, &d, error);
    p->compute_efficiency = d;
  } else if (strcmp (key, "onchip_memory_bytes") == 0) {
    ret = parse_u64 (key, value, 1024, MAX_MEMORY_BYTES, &u, error);
    p->onchip_memory_bytes = u;
  } else if (strcmp (key, "dma_bytes_per_s") == 0) {
    ret = parse_double (key, value, 1e6, MAX_BYTES_PER_S, &d, error);
    p->dma_bytes_per_s = d;
  } else if (strcmp (key, "host_copy_bytes_per_s") == 0) {
    ret = parse_double (key, value, 1e6, MAX_BYTES_PER_S, &d, error);
    p->host_copy_bytes_per_s = d;
  } else if (strcmp (key, "job_overhead_ns") == 0) {
    ret = parse_u64 (key, value, 0, MAX_OVERHEAD_NS, &u, error);
    p->job_overhead_ns = u;
  } else if (strcmp (key, "op_overhead_cycles") == 0) {
    ret = parse_u64 (key, value, 0, MAX_MACS_PER_CYCLE, &u, error);
    p->op_overhead_cycles = (uint32_t) u;
  } else {
    ret = simnpu__set_error (error, SIMNPU_EINVAL,
        "profile override '%s': unknown parameter; expected one of cores, "
        "clock_mhz, macs_per_cycle, vector_bytes_per_cycle, "
        "compute_efficiency, onchip_memory_bytes, dma_bytes_per_s, "
        "host_copy_bytes_per_s, job_overhead_ns, op_overhead_cycles", key);
  }
  return ret;
}

int
simnpu__profile_parse (const char *spec, simnpu__profile * profile,
    simnpu_error * error)
{
  const char *colon;
  char base[sizeof (profile->name)];
  size_t base_len;
  unsigned i;
  gchar **pairs;
  int ret = 0;

  if (spec == NULL || spec[0] == '\0')
    spec = "metis";
  colon = strchr (spec, ':');
  base_len = colon ? (size_t) (colon - spec) : strlen (spec);
  if (base_len >= sizeof (base))
    return simnpu__set_error (error, SIMNPU_ENOENT,
        "device profile: name too long; expected 'metis' or 'torq'");
  memcpy (base, spec, base_len);
  base[base_len] = '\0';

  for (i = 0; i < G_N_ELEMENTS (simnpu__profiles); i++) {
    if (strcmp (simnpu__profiles[i].name, base) == 0)
      break;
  }
  if (i == G_N_ELEMENTS (simnpu__profiles))
    return simnpu__set_error (error, SIMNPU_ENOENT,
        "device profile '%s': unknown; expected 'metis' or 'torq', "
        "optionally followed by ':key=value,...'", base);
  *profile = simnpu__profiles[i];

  if (colon == NULL || colon[1] == '\0')
    return 0;

  pairs = g_strsplit (colon + 1, ",", -1);
  for (i = 0; pairs[i] != NULL && ret == 0; i++) {
    char *eq = strchr (pairs[i], '=');
    if (eq == NULL || eq == pairs[i]) {
      ret = simnpu__set_error (error, SIMNPU_EINVAL,
          "profile override '%s': expected 'key=value'", pairs[i]);
      break;
    }
    *eq = '\0';
    ret = apply_override (profile, pairs[i], eq + 1, error);
  }
  g_strfreev (pairs);
  return ret;
}

void
simnpu__profile_to_spec (const simnpu__profile * p, char *buf, size_t size)
{
  char clock[G_ASCII_DTOSTR_BUF_SIZE], eff[G_ASCII_DTOSTR_BUF_SIZE];
  char dma[G_ASCII_DTOSTR_BUF_SIZE], host[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (clock, sizeof (clock), "%g", p->clock_mhz);
  g_ascii_formatd (eff, sizeof (eff), "%g", p->compute_efficiency);
  g_ascii_formatd (dma, sizeof (dma), "%g", p->dma_bytes_per_s);
  g_ascii_formatd (host, sizeof (host), "%g", p->host_copy_bytes_per_s);
  snprintf (buf, size, "%s:cores=%u,clock_mhz=%s,macs_per_cycle=%u,"
      "vector_bytes_per_cycle=%u,compute_efficiency=%s,"
      "onchip_memory_bytes=%" G_GUINT64_FORMAT ",dma_bytes_per_s=%s,"
      "host_copy_bytes_per_s=%s,job_overhead_ns=%" G_GUINT64_FORMAT
      ",op_overhead_cycles=%u", p->name, p->cores, clock, p->macs_per_cycle,
      p->vector_bytes_per_cycle, eff, (guint64) p->onchip_memory_bytes, dma,
      host, (guint64) p->job_overhead_ns, p->op_overhead_cycles);
}

/* Resource order: cores first, then the DMA engines, then CDMA and CSS.
 * Returns the number of resources. */
unsigned
simnpu__profile_resources (const simnpu__profile * p,
    simnpu_resource_info * res, char names[][16])
{
  unsigned n = 0, i;
  const char *core_prefix = p->split_dma ? "slice" : "core";

  for (i = 0; i < p->cores; i++, n++) {
    snprintf (names[n], 16, "%s%u", core_prefix, i);
    res[n].kind = SIMNPU_RESOURCE_CORE;
    res[n].index_of_kind = i;
  }
  if (p->split_dma) {
    snprintf (names[n], 16, "dma_in");
    res[n].kind = SIMNPU_RESOURCE_DMA_IN;
    res[n++].index_of_kind = 0;
    snprintf (names[n], 16, "dma_out");
    res[n].kind = SIMNPU_RESOURCE_DMA_OUT;
    res[n++].index_of_kind = 0;
  } else {
    snprintf (names[n], 16, "dma");
    res[n].kind = SIMNPU_RESOURCE_DMA;
    res[n++].index_of_kind = 0;
  }
  if (p->has_cdma_css) {
    snprintf (names[n], 16, "cdma");
    res[n].kind = SIMNPU_RESOURCE_CDMA;
    res[n++].index_of_kind = 0;
    snprintf (names[n], 16, "css");
    res[n].kind = SIMNPU_RESOURCE_CSS;
    res[n++].index_of_kind = 0;
  }
  for (i = 0; i < n; i++)
    res[i].name = names[i];
  return n;
}

int
simnpu__profile_resource_of_kind (const simnpu__profile * p,
    simnpu_resource_kind kind)
{
  int dma_base = (int) p->cores;

  switch (kind) {
    case SIMNPU_RESOURCE_CORE:
      return SIMNPU__RES_CORE;
    case SIMNPU_RESOURCE_DMA:
    case SIMNPU_RESOURCE_DMA_IN:
      return dma_base;
    case SIMNPU_RESOURCE_DMA_OUT:
      return p->split_dma ? dma_base + 1 : dma_base;
    case SIMNPU_RESOURCE_CDMA:
      return p->has_cdma_css ? dma_base + 2 : -1;
    case SIMNPU_RESOURCE_CSS:
      return p->has_cdma_css ? dma_base + 3 : -1;
    default:
      return -1;
  }
}
