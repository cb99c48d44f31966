/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The asynchronous runtime.
 *
 * Threads: the caller submits (validates, copies the inputs, and places
 * the job's actions on the device resources in simulated time, all under
 * the device lock except the copy); one worker thread per core pops its
 * core's queue and runs the int8 kernels. A job's due time is the modelled
 * end of the job on the device timeline, or "now" at time scale 0 and on
 * the virtual clock. A job due when computed completes on its worker; one
 * not yet due stays with its worker, which sleeps until then, unless
 * another job arrives in that core's queue: then the pacer thread takes
 * it and completes jobs in due order. Completing records events and
 * counters and calls the callback.
 *
 * Every thread hand-off is a futex wake-up (slow in a VM), so only the
 * thread with something to do is woken (per-job conditions, targeted
 * signals), and only after the lock is released.
 *
 * Job states move QUEUED -> COMPUTING -> PACING -> CALLBACK -> DONE, all
 * transitions under the device lock. A job is recycled (never freed) when
 * both the device and the user are done with it, so the steady state
 * allocates nothing.
 *
 * The runtime's files, one concern each:
 *   runtime-private.h  the device, model and job records (this file)
 *   runtime-heap.c     the completion heap (pure: it wakes nobody)
 *   runtime-threads.c  workers, pacer, waits and wake-ups
 *   runtime-timeline.c the reservations of the device resources
 *   runtime-events.c   counters, the event ring and the runtime CSV
 *   runtime-device.c   simnpu_device_*: open, close, clocks, drain
 *   runtime-model.c    simnpu_model_*: load, unload, tensor specs
 *   runtime-job.c      simnpu_job_*: submit, wait, cancel, completion */

#ifndef SIMNPU_RUNTIME_PRIVATE_H
#define SIMNPU_RUNTIME_PRIVATE_H

#include "runtime/runtime.h"
#include "device/device.h"
#include "format/format.h"
#include "ir/exec/ir-exec.h"
#include "kernels/kernels.h"

#include <errno.h>
#include <pthread.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <string.h>
#include <time.h>

/* Host sections (host.c) */

/* The public face of a loaded model: its public inputs and outputs (the
 * preamble's inputs then the device inputs it does not produce; the
 * postamble's outputs then the device outputs it does not consume) and
 * one executor per host section. */
typedef struct
{
  unsigned n_inputs, n_outputs;
  simnpu_tensor_spec inputs[SIMNPU_MAX_IO];
  simnpu_tensor_spec outputs[SIMNPU_MAX_IO];
  simnpu_binding in_bind[SIMNPU_MAX_IO];
  simnpu_binding out_bind[SIMNPU_MAX_IO];
  simnpu_host_section *sections[SIMNPU__N_HOST_SECTIONS];
} simnpu__host_view;

/* @dev_in and @dev_out are the device graph's tensor specs; the view
 * points into them and into @g, which must outlive it. */
SIMNPU_INTERNAL int simnpu__host_view_init (simnpu__host_view * v,
    const simnpu__graph * g, const simnpu_tensor_spec * dev_in,
    const simnpu_tensor_spec * dev_out, simnpu_error * error);
SIMNPU_INTERNAL void simnpu__host_view_clear (simnpu__host_view * v);

#define SIMNPU__MAX_CORES 8
#define SIMNPU__DEFAULT_EVENT_CAPACITY 8192
#define SIMNPU__MAX_EVENT_CAPACITY (1u << 24)
#define SIMNPU__PACER_TIMER_SLACK_NS 1000UL
#define SIMNPU__SIM_CPU_REFRESH_NS (G_GUINT64_CONSTANT (1000) * 1000)
/* the staged inputs are read in place by the kernels, which expect the
 * arena's alignment */
#define SIMNPU__STAGING_ALIGN 64
/* job records made ready at model load, per device core */
#define SIMNPU__JOBS_RESERVED_PER_CORE 2

typedef enum
{
  SIMNPU__JOB_IDLE = 0,
  SIMNPU__JOB_QUEUED,
  SIMNPU__JOB_COMPUTING,
  SIMNPU__JOB_PACING,
  SIMNPU__JOB_CALLBACK,
  SIMNPU__JOB_DONE,
} simnpu__job_state;

/* a row of the runtime CSV: an event's start/end pair, or a job's core */
typedef struct
{
  simnpu_event event;
  bool core_row;
} simnpu__profile_row;

/* jobs computed and not yet due, earliest first (runtime-heap.c) */
typedef struct
{
  simnpu_job **items;
  unsigned len;
  unsigned cap;
} simnpu__job_heap;

struct simnpu_model
{
  simnpu_device *dev;
  simnpu__graph *graph;
  simnpu__schedule schedule;
  bool rescheduled;
  const char *dispatch_name;
  uint8_t *arenas[SIMNPU__MAX_CORES];
  int8_t *scratch[SIMNPU__MAX_CORES];
  simnpu_tensor_spec in_specs[SIMNPU_MAX_IO];
  simnpu_tensor_spec out_specs[SIMNPU_MAX_IO];
  /* the public tensors and the host sections */
  simnpu__host_view host;
  /* each device input's place in a job's staging buffer */
  size_t staging_offsets[SIMNPU_MAX_IO];
  size_t staging_bytes;
  /* protected by the device lock */
  unsigned outstanding;
};

struct simnpu_job
{
  simnpu_device *dev;
  simnpu_model *model;
  simnpu__job_state state;
  bool cancel_requested;
  bool detached;
  bool user_freed;
  simnpu_job_callback callback;
  void *user_data;
  uint8_t *staging;
  size_t staging_cap;
  simnpu_output_buffer outputs[SIMNPU_MAX_IO];
  uint64_t *act_start;
  uint64_t *act_end;
  unsigned act_cap;
  unsigned core;
  /* the time scale the job was scheduled with */
  double scale;
  uint64_t due_ns;
  int heap_index;
  GList link;
  simnpu_job_result result;
  simnpu_job *next_free;
  /* waiters in simnpu_job_wait() and simnpu_job_cancel(); a job's
   * completion wakes only its own waiters */
  GCond cond;
  unsigned n_waiters;
};

struct simnpu_device
{
  simnpu__profile profile;
  char spec[256];
  simnpu_resource_info resources[SIMNPU_MAX_RESOURCES];
  char resource_names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_resources;

  GMutex lock;
  /* broadcast when a model's last outstanding job completes, while
   * someone waits (drain, unload, close) */
  GCond cond;
  unsigned n_waiters;
  bool pacer_waiting;
  bool worker_waiting[SIMNPU__MAX_CORES];
  double time_scale;
  bool virtual_clock;
  uint64_t virtual_now_ns;
  bool closing;
  bool stop_threads;

  /* end of the last reservation per resource */
  uint64_t free_at_ns[SIMNPU_MAX_RESOURCES];
  /* future reservations per resource, sorted and disjoint */
  GArray *reserved[SIMNPU_MAX_RESOURCES];
  GQueue queues[SIMNPU__MAX_CORES];
  GCond queue_cond[SIMNPU__MAX_CORES];
  GThread *workers[SIMNPU__MAX_CORES];
  clockid_t thread_clocks[SIMNPU__MAX_CORES + 1];
  bool thread_clock_valid[SIMNPU__MAX_CORES + 1];

  GThread *pacer;
  GCond pacer_cond;
  simnpu__job_heap heap;

  uint64_t next_job_id;
  unsigned outstanding;
  simnpu_job *free_jobs;
  GPtrArray *all_jobs;
  GPtrArray *models;
  GPtrArray *names;

  simnpu_counters counters;
  /* the last reading of the threads' CPU clocks, and when it was taken */
  uint64_t sim_cpu_ns;
  uint64_t sim_cpu_read_ns;
  simnpu_event *ring;
  size_t ring_cap;
  size_t ring_head;
  size_t ring_len;
  FILE *profile_file;
  /* rows of the runtime CSV queued under the lock, written out of it
   * (simnpu__profile_flush()) */
  GArray *profile_rows;
  /* the next flush's empty array; taken under profile_lock, which orders
   * the flushes and is taken before the device lock */
  GArray *profile_spare_rows;
  GMutex profile_lock;
};

typedef struct
{
  simnpu_device *dev;
  unsigned core;
} simnpu__worker_arg;

typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
} simnpu__interval;

#define SIMNPU__MAX_WAKEUPS 4

/* Condition variables to wake once the device lock is released: a thread
 * woken while the waker still holds the lock would only block again on
 * the lock, two more futex calls and a context switch per hand-off. */
typedef struct
{
  GCond *conds[SIMNPU__MAX_WAKEUPS];
  bool broadcast[SIMNPU__MAX_WAKEUPS];
  unsigned n;
} simnpu__wakeups;

/* runtime-heap.c; lock held */
SIMNPU_INTERNAL bool simnpu__heap_push (simnpu__job_heap * h, simnpu_job * job);
SIMNPU_INTERNAL void simnpu__heap_remove (simnpu__job_heap * h,
    simnpu_job * job);
SIMNPU_INTERNAL void simnpu__heap_clear (simnpu__job_heap * h);

/* runtime-threads.c */
SIMNPU_INTERNAL uint64_t simnpu__device_now (simnpu_device * dev);
SIMNPU_INTERNAL gint64 simnpu__deadline_us (int64_t timeout_ns);
SIMNPU_INTERNAL void simnpu__dev_wait (simnpu_device * dev);
SIMNPU_INTERNAL gboolean simnpu__dev_wait_until (simnpu_device * dev,
    gint64 until_us);
SIMNPU_INTERNAL void simnpu__wake_later (simnpu__wakeups * w, GCond * cond,
    bool broadcast);
SIMNPU_INTERNAL void simnpu__wake_now (simnpu__wakeups * w);
SIMNPU_INTERNAL void simnpu__job_notify (simnpu_job * job, simnpu__wakeups * w);
SIMNPU_INTERNAL void simnpu__job_wait_locked (simnpu_device * dev,
    simnpu_job * job);
SIMNPU_INTERNAL gboolean simnpu__job_wait_until_locked (simnpu_device * dev,
    simnpu_job * job, gint64 until_us);
SIMNPU_INTERNAL void simnpu__pacer_push (simnpu_device * dev,
    simnpu_job * job, simnpu__wakeups * w);
/* thread entry points: the pacer takes the device, a worker a simnpu__worker_arg
 * (which it frees) */
SIMNPU_INTERNAL gpointer simnpu__pacer_main (gpointer data);
SIMNPU_INTERNAL gpointer simnpu__worker_main (gpointer data);

/* runtime-timeline.c; lock held */
SIMNPU_INTERNAL void simnpu__timeline_schedule_job (simnpu_device * dev,
    simnpu_job * job, uint64_t now);

/* runtime-events.c; lock held */
SIMNPU_INTERNAL void simnpu__account_job (simnpu_device * dev,
    simnpu_job * job);
/* lock not held: write the queued runtime-CSV rows; and then close the
 * file */
SIMNPU_INTERNAL void simnpu__profile_flush (simnpu_device * dev);
SIMNPU_INTERNAL void simnpu__profile_close (simnpu_device * dev);

/* runtime-job.c */
SIMNPU_INTERNAL void simnpu__finish_job (simnpu_device * dev,
    simnpu_job * job, simnpu__wakeups * w);
SIMNPU_INTERNAL void simnpu__cancel_locked (simnpu_device * dev,
    simnpu_job * job, simnpu__wakeups * w);
SIMNPU_INTERNAL void simnpu__reserve_jobs (simnpu_device * dev,
    simnpu_model * m);

#endif /* SIMNPU_RUNTIME_PRIVATE_H */
