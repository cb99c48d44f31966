/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the two files of axinference share: the element's records, read
 * by the streaming half (gstaxinference.c: properties, the window of
 * jobs, the chain, the output thread, the probe spans) and by the model
 * half (gstaxinference-model.c: loading the model onto the device, its
 * host sections and output pools, the answer to the model query). */

#ifndef __GST_AX_INFERENCE_PRIVATE_H__
#define __GST_AX_INFERENCE_PRIVATE_H__

#include "gstaxinference.h"
#include "gstaxdevice.h"

#include <gst/ax/ax.h>
#include <simnpu/simnpu.h>
#include "gstaxsimnpu-enums.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_ax_inference_debug);


#define DEFAULT_PROP_MODEL NULL
#define DEFAULT_PROP_DEVICE "metis"
#define DEFAULT_PROP_IN_FLIGHT 0
#define DEFAULT_PROP_TIME_SCALE 1.0
#define DEFAULT_PROP_PROFILE_HOST NULL
#define DEFAULT_PROP_MODEL_NAME NULL
#define DEFAULT_PROP_DEVICE_ID 0
#define MAX_DEVICE_ID G_MAXUINT

/* in-flight = 0 means this many jobs per device core */
#define AUTO_IN_FLIGHT_PER_CORE 2
/* how far upstream the search for the model that made the ROIs goes */
#define MAX_SCOPE_HOPS 16
#define MAX_IN_FLIGHT 1024
/* outputs of one model; submit takes them from a stack array */
#define MAX_OUTPUTS 16
/* frames without tensors hold no job; this bounds the queue anyway */
#define QUEUED_ITEMS_PER_JOB 2
/* at most this many output buffers and bytes per pool mapped at start */
#define MAX_PREFAULT 64
#define MAX_PREFAULT_BYTES ((gsize) 64 << 20)
#define MAX_TIME_SCALE 1000.0
#define MODEL_SUFFIX GST_AX_MODEL_SUFFIX
#define MODEL_PATH_ENV GST_AX_MODEL_PATH_ENV

#define STAGE_HOST_COPY_IN "host copy in"
#define STAGE_DEVICE_WAIT "device wait"
#define STAGE_HOST_COPY_OUT "host copy out"
#define STAGE_PREAMBLE "preamble"
#define STAGE_POSTAMBLE "postamble"
/* a device output that is a public output as is */
#define NOT_PUBLIC (-1)

typedef struct _Item Item;

/* One device job: one input tensor of a frame. */
typedef struct
{
  GstAxInference *self;
  Item *item;
  simnpu_job *job;
  guint instance;
  gboolean has_letterbox;
  GstAxLetterboxGeometry letterbox;
  gint roi_id;
  GstBuffer **outs;             /* n_outputs, mapped for writing */
  GstMapInfo *maps;
  /* the device outputs the postamble consumes (scratch_bytes) */
  guint8 *scratch;
  /* protected by the element's lock */
  gboolean done;
  simnpu_job_result result;
} Job;

/* A frame (with its jobs) or a serialized event, in stream order. Frame
 * items are recycled through a free list, so steady state allocates
 * nothing. */
struct _Item
{
  GList link;
  GstBuffer *frame;
  GstEvent *event;
  Job *jobs;
  guint n_jobs;
  guint jobs_size;
  guint n_outputs;              /* size of each job's outs / maps */
  gsize scratch_bytes;          /* size of each job's scratch */
  /* protected by the element's lock */
  guint n_done;
  gboolean reported;            /* error already posted by the chain */
  /* on the probe clock, 0 without a profiler: when the chain took the
   * frame into the window, and when its last job completed (under the
   * lock) */
  guint64 enter_ns;
  guint64 done_ns;
};

struct _GstAxInference
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* properties, protected by the object lock */
  gchar *model;
  gchar *device;
  guint in_flight;
  gdouble time_scale;
  gchar *profile_host;
  gchar *model_name;
  guint device_id;

  /* the device, maybe shared with other elements (gstaxdevice.h); set in
   * NULL->READY and cleared in READY->NULL under the object lock, which
   * the context queries of other elements take to read it */
  GstAxDevice *shared;

  /* set in NULL->READY, constant until READY->NULL */
  simnpu_device *dev;
  simnpu_model *net;
  simnpu_device_info dev_info;
  simnpu_model_info net_info;
  simnpu_tensor_spec in_spec;
  simnpu_tensor_spec *out_specs;
  guint n_outputs;
  /* host sections (NULL when absent) and the buffers around them: the
   * device inputs the preamble writes (the chain function's, reused for
   * every job since submit copies them), and where each device output
   * goes: a public output, or the job's scratch at an offset */
  simnpu_host_section *preamble;
  simnpu_host_section *postamble;
  guint n_device_inputs;
  guint n_device_outputs;
  simnpu_tensor_spec dev_in_specs[MAX_OUTPUTS];
  simnpu_tensor_spec dev_out_specs[MAX_OUTPUTS];
  guint8 *dev_in_bufs[MAX_OUTPUTS];
  gint dev_out_public[MAX_OUTPUTS];
  gsize dev_out_offset[MAX_OUTPUTS];
  gsize scratch_bytes;
  GstBufferPool **pools;
  /* interned: the model's name (model-name, else the file's), and the
   * group the profiler shows it in: the model name, scoped under the
   * model whose ROIs it runs on and under a named bin (scoped_group()) */
  const gchar *model_group;
  const gchar *group;
  const gchar *device_spec;     /* interned device string */
  guint window;
  gboolean host_profile;
  /* the path the running host profile writes, and whether a write error
   * was reported already (once per profile) */
  gchar *host_profile_path;
  gboolean host_profile_failed;

  /* streaming state, protected by lock */
  GMutex lock;
  GCond cond;
  GQueue queue;                 /* of Item, by link */
  GQueue free_items;
  guint n_outstanding;          /* jobs in queued items */
  /* jobs submitted whose callback has not run: at most window, also
   * within one frame of more tensors than the window */
  guint n_running;
  gboolean flushing;
  GstFlowReturn srcresult;
  gboolean warned_no_tensor;

  /* the window as the profiler sees it, on the probe clock; written by
   * the output thread only: every frame's time from entering the window
   * to leaving it (the output thread takes it), the part of it finished
   * frames waited for their turn, and the span from the first entry to
   * the last exit */
  guint64 window_frame_ns;
  guint64 window_held_ns;
  guint64 window_first_ns;
  guint64 window_last_ns;
  /* this element's jobs on the device, which others may share */
  guint64 jobs_done;
  guint64 lag_ns;
};

gboolean gst_ax_inference_open_device (GstAxInference * self);
void gst_ax_inference_close_device (GstAxInference * self);
void gst_ax_inference_host_profile_failed (GstAxInference * self);
gboolean gst_ax_inference_answer_model_query (GstAxInference * self,
    GstQuery * query);

G_END_DECLS

#endif /* __GST_AX_INFERENCE_PRIVATE_H__ */
