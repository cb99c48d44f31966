/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:simnpu
 * @title: libsimnpu
 * @short_description: the simulated NPU runtime
 *
 * libsimnpu simulates an edge NPU: a device opened from a profile ("metis",
 * "torq", with inline overrides), models loaded from compiled `.axm`
 * containers, and asynchronous jobs that compute real outputs with int8
 * kernels on the device's worker threads while their completion is paced
 * by the modelled device time.
 *
 * Conventions:
 *
 * - Every function that can fail returns 0 (or a positive count) on
 *   success and a negative `SIMNPU_E*` code on failure; simnpu_strerror()
 *   names the code. Functions that take a #simnpu_error also fill it with
 *   a message naming the offending field and what was expected.
 * - Every function is thread-safe, except that a device (or model) must
 *   not be used by other threads while it is being closed (or unloaded).
 * - Time stamps are nanoseconds on the device clock: CLOCK_MONOTONIC (the
 *   same clock as gst_ax_probe_now_ns()) unless the device was switched to
 *   a virtual clock for tests with simnpu_device_use_virtual_clock().
 */

#ifndef __SIMNPU_H__
#define __SIMNPU_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SIMNPU_API
# ifdef BUILDING_SIMNPU
#  define SIMNPU_API __attribute__ ((visibility ("default"))) extern
# else
#  define SIMNPU_API extern
# endif
#endif

/* Version of the library API; the .axm container has its own version.
 * 1.1 added host sections, device tensors, preprocessing and decoder
 * metadata. */
#define SIMNPU_VERSION_MAJOR 1
#define SIMNPU_VERSION_MINOR 1

/* Maximum rank of a tensor (the same as GST_AX_TENSOR_MAX_DIMS). */
#define SIMNPU_MAX_DIMS 4

/* Maximum number of schedulable resources (cores, slices and engines)
 * of a device. */
#define SIMNPU_MAX_RESOURCES 16

/* Size of the message buffer of #simnpu_error, including the NUL. */
#define SIMNPU_ERROR_MESSAGE_SIZE 512

/**
 * simnpu_status:
 * @SIMNPU_OK: success
 * @SIMNPU_EINVAL: an argument is invalid (NULL, out of range, bad syntax)
 * @SIMNPU_ENOMEM: out of memory, or a size above the library's limits
 * @SIMNPU_EIO: a file could not be read or written
 * @SIMNPU_EFORMAT: a model file (.axm or JSON) is malformed
 * @SIMNPU_EVERSION: the .axm container version is not supported
 * @SIMNPU_EUNSUPPORTED: an unknown op, dtype, attribute or profile
 * @SIMNPU_ESHAPE: tensor shapes do not fit together
 * @SIMNPU_ESIZE: a buffer has the wrong size for its tensor
 * @SIMNPU_ETIMEDOUT: a wait timed out
 * @SIMNPU_EAGAIN: the job has not completed yet
 * @SIMNPU_ECANCELED: the job was cancelled
 * @SIMNPU_ECLOSED: the device is closing
 * @SIMNPU_ENOWEIGHTS: the model is shape-only (estimate only): it takes
 *   only timing-only jobs (no buffers)
 * @SIMNPU_ENOENT: no such profile, tensor, file or device resource
 * @SIMNPU_EINTERNAL: an internal invariant failed (a bug)
 *
 * Status codes. Errors are negative.
 */
typedef enum
{
  SIMNPU_OK = 0,
  SIMNPU_EINVAL = -1,
  SIMNPU_ENOMEM = -2,
  SIMNPU_EIO = -3,
  SIMNPU_EFORMAT = -4,
  SIMNPU_EVERSION = -5,
  SIMNPU_EUNSUPPORTED = -6,
  SIMNPU_ESHAPE = -7,
  SIMNPU_ESIZE = -8,
  SIMNPU_ETIMEDOUT = -9,
  SIMNPU_EAGAIN = -10,
  SIMNPU_ECANCELED = -11,
  SIMNPU_ECLOSED = -12,
  SIMNPU_ENOWEIGHTS = -13,
  SIMNPU_ENOENT = -14,
  SIMNPU_EINTERNAL = -15,
} simnpu_status;

/**
 * simnpu_error:
 * @code: the status code (0 when no error)
 * @message: what was wrong, naming the field and what was expected
 *
 * Detailed error report, filled by functions that take one. Lives on the
 * caller's stack; the library never allocates it.
 */
typedef struct
{
  int code;
  char message[SIMNPU_ERROR_MESSAGE_SIZE];
} simnpu_error;

SIMNPU_API const char *simnpu_strerror (int code);

/**
 * simnpu_dtype:
 * @SIMNPU_DTYPE_U8: unsigned 8-bit, real = scale * (q - zero_point)
 * @SIMNPU_DTYPE_I8: signed 8-bit, real = scale * (q - zero_point)
 * @SIMNPU_DTYPE_F32: 32-bit float (scale 1, zero point 0)
 *
 * Element type of a tensor. The values match GstAxTensorDType.
 */
typedef enum
{
  SIMNPU_DTYPE_U8 = 0,
  SIMNPU_DTYPE_I8 = 1,
  SIMNPU_DTYPE_F32 = 2,
} simnpu_dtype;

/**
 * simnpu_layout:
 * @SIMNPU_LAYOUT_NHWC: channels last
 * @SIMNPU_LAYOUT_NCHW: channels first (also used for rank < 4 tensors)
 *
 * Memory layout of a tensor. The values match GstAxTensorLayout.
 */
typedef enum
{
  SIMNPU_LAYOUT_NHWC = 0,
  SIMNPU_LAYOUT_NCHW = 1,
} simnpu_layout;

SIMNPU_API size_t simnpu_dtype_size (simnpu_dtype dtype);
SIMNPU_API const char *simnpu_dtype_to_string (simnpu_dtype dtype);
SIMNPU_API const char *simnpu_layout_to_string (simnpu_layout layout);

/**
 * simnpu_tensor_spec:
 * @name: tensor name; valid while the model is loaded
 * @dtype: element type
 * @layout: memory layout
 * @n_dims: rank, 1 to %SIMNPU_MAX_DIMS
 * @dims: the dimensions, outermost first
 * @scale: quantisation scale
 * @zero_point: quantisation zero point
 * @size_bytes: bytes of a buffer holding the tensor
 *
 * Description of a model input or output.
 */
typedef struct
{
  const char *name;
  simnpu_dtype dtype;
  simnpu_layout layout;
  unsigned n_dims;
  int64_t dims[SIMNPU_MAX_DIMS];
  float scale;
  int32_t zero_point;
  size_t size_bytes;
} simnpu_tensor_spec;

/* ------------------------------------------------------------------ */
/* Devices                                                              */

typedef struct simnpu_device simnpu_device;

/**
 * simnpu_resource_kind:
 * @SIMNPU_RESOURCE_CORE: a compute core (Metis AIPU core) or slice (Torq)
 * @SIMNPU_RESOURCE_DMA_IN: DMA engine moving data into the device
 * @SIMNPU_RESOURCE_DMA_OUT: DMA engine moving data out of the device
 * @SIMNPU_RESOURCE_DMA: a DMA engine used in both directions
 * @SIMNPU_RESOURCE_CDMA: on-chip memory-to-memory DMA
 * @SIMNPU_RESOURCE_CSS: the control subsystem (scheduling, small ops)
 *
 * What a schedulable device resource is.
 */
typedef enum
{
  SIMNPU_RESOURCE_CORE = 0,
  SIMNPU_RESOURCE_DMA_IN = 1,
  SIMNPU_RESOURCE_DMA_OUT = 2,
  SIMNPU_RESOURCE_DMA = 3,
  SIMNPU_RESOURCE_CDMA = 4,
  SIMNPU_RESOURCE_CSS = 5,
} simnpu_resource_kind;

/**
 * simnpu_resource_info:
 * @name: e.g. "core0", "slice1", "dma_in"
 * @kind: what the resource is
 * @index_of_kind: index among resources of the same kind
 */
typedef struct
{
  const char *name;
  simnpu_resource_kind kind;
  unsigned index_of_kind;
} simnpu_resource_info;

/**
 * simnpu_device_info:
 * @profile: the base profile name ("metis", "torq")
 * @spec: the canonical profile with every parameter, e.g.
 *   "metis:cores=4,clock_mhz=800,..."; a model compiled for the same spec
 *   uses its compiled schedule as is
 * @description: one line for humans
 * @n_cores: compute cores (or slices); job results name one of them
 * @n_resources: all schedulable resources; cores come first, so resource
 *   i < @n_cores is core i
 * @resources: @n_resources entries
 * @clock_mhz: compute clock
 * @macs_per_cycle: int8 MACs per cycle per core or slice
 * @onchip_memory_bytes: on-chip memory per core or slice
 * @dma_bytes_per_s: bandwidth of each DMA engine
 * @host_copy_bytes_per_s: modelled host-to-device copy bandwidth
 * @job_overhead_ns: fixed per-job device overhead
 * @time_scale: the current time scale (see simnpu_device_set_time_scale())
 * @virtual_clock: whether the device runs on a virtual clock
 *
 * A device's parameters. Strings are valid until the device is closed.
 */
typedef struct
{
  const char *profile;
  const char *spec;
  const char *description;
  unsigned n_cores;
  unsigned n_resources;
  const simnpu_resource_info *resources;
  double clock_mhz;
  uint32_t macs_per_cycle;
  uint64_t onchip_memory_bytes;
  double dma_bytes_per_s;
  double host_copy_bytes_per_s;
  uint64_t job_overhead_ns;
  double time_scale;
  bool virtual_clock;
} simnpu_device_info;

SIMNPU_API const char *const *simnpu_profile_names (void);

SIMNPU_API int simnpu_device_open (const char *profile,
    simnpu_device ** out_device, simnpu_error * error);
SIMNPU_API void simnpu_device_close (simnpu_device * device);

SIMNPU_API int simnpu_device_get_info (simnpu_device * device,
    simnpu_device_info * info);

SIMNPU_API int simnpu_device_set_time_scale (simnpu_device * device,
    double time_scale);
SIMNPU_API double simnpu_device_get_time_scale (simnpu_device * device);

SIMNPU_API uint64_t simnpu_device_now_ns (simnpu_device * device);

SIMNPU_API int simnpu_device_use_virtual_clock (simnpu_device * device,
    uint64_t start_ns);
SIMNPU_API int simnpu_device_advance_virtual_clock (simnpu_device * device,
    uint64_t delta_ns);

SIMNPU_API int simnpu_device_drain (simnpu_device * device,
    int64_t timeout_ns);

/* ------------------------------------------------------------------ */
/* Models                                                               */

typedef struct simnpu_model simnpu_model;

/**
 * simnpu_model_info:
 * @name: the model name (also the runtime CSV's dispatch_name)
 * @compiled_for: the device spec the container's schedule was compiled for
 * @n_inputs: number of inputs
 * @n_outputs: number of outputs
 * @n_ops: number of ops
 * @n_actions: number of scheduled actions per job
 * @total_macs: multiply-accumulates per job
 * @weight_bytes: bytes of weights and biases
 * @device_ns: modelled device time of one job on an idle device at time
 *   scale 1.0 (DMA in, compute, DMA out and the fixed overhead)
 * @estimate_only: the model has shapes but no weights: it can be
 *   estimated, not run
 * @rescheduled: the device differs from @compiled_for, so the schedule was
 *   recomputed for this device at load
 * @n_labels: number of class labels the model carries (0 if none)
 * @labels: (array length=n_labels): the class labels, class 0 first,
 *   NULL-terminated; never NULL
 * @n_device_inputs: inputs of the device graph, which simnpu_job_submit()
 *   takes (equal to @n_inputs when the model has no preamble)
 * @n_device_outputs: outputs of the device graph, which simnpu_job_submit()
 *   fills (equal to @n_outputs when the model has no postamble)
 * @has_preamble: the model has a host section run before the device
 * @has_postamble: the model has a host section run after the device
 *
 * Facts about a loaded model. Strings are valid while it is loaded.
 * @n_inputs and @n_outputs count the model's public tensors, see
 * simnpu_model_get_input().
 */
typedef struct
{
  const char *name;
  const char *compiled_for;
  unsigned n_inputs;
  unsigned n_outputs;
  unsigned n_ops;
  unsigned n_actions;
  uint64_t total_macs;
  uint64_t weight_bytes;
  uint64_t device_ns;
  bool estimate_only;
  bool rescheduled;
  unsigned n_labels;
  const char *const *labels;
  unsigned n_device_inputs;
  unsigned n_device_outputs;
  bool has_preamble;
  bool has_postamble;
} simnpu_model_info;

SIMNPU_API int simnpu_model_load (simnpu_device * device, const char *path,
    simnpu_model ** out_model, simnpu_error * error);
SIMNPU_API int simnpu_model_load_from_memory (simnpu_device * device,
    const void *data, size_t size_bytes, simnpu_model ** out_model,
    simnpu_error * error);
SIMNPU_API void simnpu_model_unload (simnpu_model * model);

SIMNPU_API int simnpu_model_get_info (simnpu_model * model,
    simnpu_model_info * info);
SIMNPU_API int simnpu_model_get_input (simnpu_model * model, unsigned index,
    simnpu_tensor_spec * spec);
SIMNPU_API int simnpu_model_get_output (simnpu_model * model,
    unsigned index, simnpu_tensor_spec * spec);
SIMNPU_API uint64_t simnpu_model_get_device_ns (simnpu_model * model);
SIMNPU_API uint64_t simnpu_model_get_latency_ns (simnpu_model * model);
SIMNPU_API int simnpu_model_get_job_resources (simnpu_model * model,
    char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Host sections, preprocessing and decoder metadata                    */

/**
 * simnpu_section_kind:
 * @SIMNPU_SECTION_PREAMBLE: the float host section run before the device
 *   graph: it turns public inputs into device inputs
 * @SIMNPU_SECTION_POSTAMBLE: the float host section run after the device
 *   graph: it turns device outputs into public outputs
 * @SIMNPU_SECTION_DEVICE: the device graph, run by simnpu_job_submit()
 *
 * The parts of a compiled model, in the order a frame goes through them.
 */
typedef enum
{
  SIMNPU_SECTION_PREAMBLE = 0,
  SIMNPU_SECTION_POSTAMBLE = 1,
  SIMNPU_SECTION_DEVICE = 2,
} simnpu_section_kind;

/**
 * simnpu_binding:
 * @section: the part of the model the public tensor belongs to
 * @index: its index among that part's inputs (for a public input) or
 *   outputs (for a public output)
 *
 * Where a public tensor of a model goes (see
 * simnpu_model_get_input_binding()).
 */
typedef struct
{
  simnpu_section_kind section;
  unsigned index;
} simnpu_binding;

SIMNPU_API int simnpu_model_get_device_input (simnpu_model * model,
    unsigned index, simnpu_tensor_spec * spec);
SIMNPU_API int simnpu_model_get_device_output (simnpu_model * model,
    unsigned index, simnpu_tensor_spec * spec);
SIMNPU_API int simnpu_model_get_input_binding (simnpu_model * model,
    unsigned index, simnpu_binding * binding);
SIMNPU_API int simnpu_model_get_output_binding (simnpu_model * model,
    unsigned index, simnpu_binding * binding);

typedef struct simnpu_host_section simnpu_host_section;

/**
 * simnpu_host_section_info:
 * @kind: %SIMNPU_SECTION_PREAMBLE or %SIMNPU_SECTION_POSTAMBLE
 * @name: the section's graph name; valid while the model is loaded
 * @n_inputs: number of inputs
 * @n_outputs: number of outputs
 * @n_nodes: float operations (graph nodes) it runs
 * @cost: element operations (multiply-accumulates for convolutions and
 *   matrix products) of one run
 *
 * Facts about a host section.
 */
typedef struct
{
  simnpu_section_kind kind;
  const char *name;
  unsigned n_inputs;
  unsigned n_outputs;
  unsigned n_nodes;
  uint64_t cost;
} simnpu_host_section_info;

SIMNPU_API simnpu_host_section *simnpu_model_get_host_section (simnpu_model *
    model, simnpu_section_kind kind);
SIMNPU_API int simnpu_host_section_get_info (simnpu_host_section * section,
    simnpu_host_section_info * info);
SIMNPU_API int simnpu_host_section_get_input (simnpu_host_section * section,
    unsigned index, simnpu_tensor_spec * spec, unsigned *bound_index);
SIMNPU_API int simnpu_host_section_get_output (simnpu_host_section *
    section, unsigned index, simnpu_tensor_spec * spec,
    unsigned *bound_index);
SIMNPU_API int simnpu_host_section_run (simnpu_host_section * section,
    const void *const *inputs, void *const *outputs, simnpu_error * error);

/**
 * simnpu_color_order:
 * @SIMNPU_PREPROCESS_RGB: three channels, red first
 * @SIMNPU_PREPROCESS_BGR: three channels, blue first
 * @SIMNPU_PREPROCESS_GRAY: one channel
 *
 * Channel order of a model's input image.
 */
typedef enum
{
  SIMNPU_PREPROCESS_RGB = 0,
  SIMNPU_PREPROCESS_BGR = 1,
  SIMNPU_PREPROCESS_GRAY = 2,
} simnpu_color_order;

/**
 * simnpu_resize_kind:
 * @SIMNPU_PREPROCESS_LETTERBOX: keep the aspect ratio, pad centred with
 *   the fill value
 * @SIMNPU_PREPROCESS_STRETCH: scale each axis to the input size
 *
 * How a frame is resized to a model's input.
 */
typedef enum
{
  SIMNPU_PREPROCESS_LETTERBOX = 0,
  SIMNPU_PREPROCESS_STRETCH = 1,
} simnpu_resize_kind;

/**
 * simnpu_preprocess:
 * @color: channel order
 * @resize: resize kind
 * @fill: letterbox padding, each channel, 0 to 255
 * @scale: pixel scale
 * @mean: per-channel mean
 * @std: per-channel standard deviation (never 0)
 * @layout: the memory layout of the image input (the one the public input
 *   reports)
 *
 * How pixels become a model's input, as calibrated: channel c of a pixel
 * p (0 to 255) is (p * @scale - @mean[c]) / @std[c].
 */
typedef struct
{
  simnpu_color_order color;
  simnpu_resize_kind resize;
  uint8_t fill;
  float scale;
  float mean[3];
  float std[3];
  simnpu_layout layout;
} simnpu_preprocess;

SIMNPU_API int simnpu_model_get_preprocess (simnpu_model * model,
    simnpu_preprocess * preprocess);
SIMNPU_API const char *simnpu_model_get_decoder_json (simnpu_model * model);

/* ------------------------------------------------------------------ */
/* Jobs                                                                 */

typedef struct simnpu_job simnpu_job;

/**
 * simnpu_input_buffer:
 * @data: the input tensor; read during simnpu_job_submit() only
 * @size_bytes: must equal the input's #simnpu_tensor_spec size_bytes
 */
typedef struct
{
  const void *data;
  size_t size_bytes;
} simnpu_input_buffer;

/**
 * simnpu_output_buffer:
 * @data: caller-owned memory the device writes the output into; it must
 *   stay valid until the job has completed (callback called, or wait or
 *   poll returned a final status) or simnpu_job_cancel() returned
 * @size_bytes: must equal the output's #simnpu_tensor_spec size_bytes
 */
typedef struct
{
  void *data;
  size_t size_bytes;
} simnpu_output_buffer;

/**
 * simnpu_job_result:
 * @job_id: the job's id, unique per device, starting at 1
 * @status: 0, %SIMNPU_ECANCELED, or the error that failed the job
 * @core: index of the core or slice the job computed on
 * @submit_ns: when the job was submitted
 * @device_start_ns: start of the job's first action on the device
 * @device_end_ns: end of the job's last action on the device
 * @complete_ns: when the job was completed (outputs valid)
 * @device_ns: modelled device time of the job at time scale 1.0
 * @host_copy_ns: wall time of the host-side copy of the inputs at submit
 * @compute_ns: wall time the worker thread spent in the kernels
 * @lag_ns: how much later than @device_end_ns the outputs were ready
 *   (0 when functional compute kept pace)
 * @user_data: the user data given at submit
 * @core_start_ns: start of the job's first compute action on its core
 * @core_end_ns: end of its last compute action on its core
 * @core_busy_ns: time its core spent computing it (the sum of its compute
 *   actions, which may be separated by gaps, e.g. streamed weights)
 *
 * Result of a completed job. @device_start_ns and @device_end_ns lie on
 * the modelled timeline, scaled by the time scale: at time scale 1.0 they
 * are when the device was busy with the job, which a profiler can use for
 * occupancy; @core_start_ns, @core_end_ns and @core_busy_ns narrow that to
 * the job's core. With a time scale of 0 they coincide.
 */
typedef struct
{
  uint64_t job_id;
  int status;
  unsigned core;
  uint64_t submit_ns;
  uint64_t device_start_ns;
  uint64_t device_end_ns;
  uint64_t complete_ns;
  uint64_t device_ns;
  uint64_t host_copy_ns;
  uint64_t compute_ns;
  uint64_t lag_ns;
  void *user_data;
  uint64_t core_start_ns;
  uint64_t core_end_ns;
  uint64_t core_busy_ns;
} simnpu_job_result;

/**
 * simnpu_job_callback:
 * @job: the job (NULL for a detached job, see simnpu_job_submit())
 * @result: its result, valid during the call
 * @user_data: the user data given at submit
 *
 * Called exactly once per job, on a device thread (a core's worker or the
 * pacer), when the job completes or is cancelled. It may call
 * simnpu_job_free() on @job and submit new jobs; it must not block for
 * long, and must not unload the job's model or close the device.
 */
typedef void (*simnpu_job_callback) (simnpu_job * job,
    const simnpu_job_result * result, void *user_data);

SIMNPU_API int simnpu_job_submit (simnpu_model * model,
    const simnpu_input_buffer * inputs, unsigned n_inputs,
    const simnpu_output_buffer * outputs, unsigned n_outputs,
    simnpu_job_callback callback, void *user_data,
    simnpu_job ** out_job, simnpu_error * error);
SIMNPU_API uint64_t simnpu_job_get_id (simnpu_job * job);
SIMNPU_API int simnpu_job_poll (simnpu_job * job,
    simnpu_job_result * result);
SIMNPU_API int simnpu_job_wait (simnpu_job * job, int64_t timeout_ns,
    simnpu_job_result * result);
SIMNPU_API int simnpu_job_cancel (simnpu_job * job);
SIMNPU_API void simnpu_job_free (simnpu_job * job);

/* ------------------------------------------------------------------ */
/* Counters                                                             */

/**
 * simnpu_counters:
 * @n_resources: entries used in @resource_busy_ns
 * @resource_busy_ns: busy time per resource on the device timeline (scaled
 *   like the job time stamps); cores come first
 * @resource_device_ns: busy time per resource in modelled device ns
 *   (unscaled)
 * @jobs_submitted: jobs accepted by simnpu_job_submit()
 * @jobs_done: jobs completed successfully
 * @jobs_cancelled: jobs completed with %SIMNPU_ECANCELED
 * @jobs_failed: jobs completed with another error
 * @dma_bytes: bytes moved by DMA actions
 * @dma_busy_ns: busy time of all DMA engines on the device timeline
 * @host_copy_bytes: bytes copied on the host at submit
 * @host_copy_ns: wall time of those copies
 * @compute_ns: wall time the worker threads spent in kernels
 * @sim_cpu_ns: CPU time used by the simulator's own threads (workers and
 *   pacer), for profilers to report apart from the pipeline
 * @lag_ns: total time by which outputs were ready after their modelled
 *   completion
 * @lagged_jobs: jobs with a non-zero lag
 * @max_lag_ns: the largest lag of one job
 * @events_dropped: events overwritten in the ring before being read
 *
 * Cumulative device counters since open.
 */
typedef struct
{
  unsigned n_resources;
  uint64_t resource_busy_ns[SIMNPU_MAX_RESOURCES];
  uint64_t resource_device_ns[SIMNPU_MAX_RESOURCES];
  uint64_t jobs_submitted;
  uint64_t jobs_done;
  uint64_t jobs_cancelled;
  uint64_t jobs_failed;
  uint64_t dma_bytes;
  uint64_t dma_busy_ns;
  uint64_t host_copy_bytes;
  uint64_t host_copy_ns;
  uint64_t compute_ns;
  uint64_t sim_cpu_ns;
  uint64_t lag_ns;
  uint64_t lagged_jobs;
  uint64_t max_lag_ns;
  uint64_t events_dropped;
} simnpu_counters;

SIMNPU_API int simnpu_device_get_counters (simnpu_device * device,
    simnpu_counters * counters);

/* ------------------------------------------------------------------ */
/* Events and runtime profiling                                         */

/**
 * simnpu_action_kind:
 * @SIMNPU_ACTION_DMA_IN: input or weights moved into the device
 * @SIMNPU_ACTION_COMPUTE: an op computed on a core or slice
 * @SIMNPU_ACTION_DMA_OUT: an output moved out of the device
 * @SIMNPU_ACTION_CDMA: an on-chip copy
 * @SIMNPU_ACTION_CSS: control work (job setup)
 */
typedef enum
{
  SIMNPU_ACTION_DMA_IN = 0,
  SIMNPU_ACTION_COMPUTE = 1,
  SIMNPU_ACTION_DMA_OUT = 2,
  SIMNPU_ACTION_CDMA = 3,
  SIMNPU_ACTION_CSS = 4,
} simnpu_action_kind;

SIMNPU_API const char *simnpu_action_kind_to_string (simnpu_action_kind
    kind);

/**
 * simnpu_event:
 * @dispatch_name: the model name; valid until the device is closed
 * @job_id: the job
 * @action_id: index of the action in the model's schedule
 * @op_index: the op the action belongs to, or -1
 * @kind: what the action does
 * @resource: the resource it ran on (index into the device's resources)
 * @bytes: bytes moved (DMA actions) or 0
 * @start_us: start on the device timeline, in microseconds
 * @end_us: end on the device timeline, in microseconds
 * @start_ns: start on the device timeline, in nanoseconds
 * @end_ns: end on the device timeline, in nanoseconds
 *
 * One action of one job on a device resource.
 */
typedef struct
{
  const char *dispatch_name;
  uint64_t job_id;
  uint32_t action_id;
  int32_t op_index;
  simnpu_action_kind kind;
  unsigned resource;
  uint64_t bytes;
  uint64_t start_us;
  uint64_t end_us;
  uint64_t start_ns;
  uint64_t end_ns;
} simnpu_event;

SIMNPU_API int simnpu_device_set_event_capacity (simnpu_device * device,
    size_t capacity);
SIMNPU_API size_t simnpu_device_read_events (simnpu_device * device,
    simnpu_event * events, size_t max_events);

SIMNPU_API int simnpu_write_runtime_csv_header (FILE * file);
SIMNPU_API int simnpu_write_runtime_csv (FILE * file,
    const simnpu_event * events, size_t n_events);

SIMNPU_API int simnpu_device_start_host_profile (simnpu_device * device,
    const char *path, simnpu_error * error);
SIMNPU_API int simnpu_device_stop_host_profile (simnpu_device * device);
SIMNPU_API int simnpu_device_flush_host_profile (simnpu_device * device);

#ifdef __cplusplus
}
#endif

#endif /* __SIMNPU_H__ */
