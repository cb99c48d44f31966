/* Makes GLib's GMutex, GCond and g_once visible to ThreadSanitizer.
 *
 * Debian's GLib implements GMutex and GCond on raw futexes and atomics
 * compiled without TSan, so TSan never sees a lock taken: every access
 * that a GMutex orders, in our code or in GStreamer's, would be reported
 * as a race. Preloaded into the tests of a TSan build (scripts/tsan.sh),
 * this library wraps the calls and tells TSan what they mean: taking a
 * lock acquires the mutex's address, releasing it releases it, a wait
 * does both. Calls from our code and from GStreamer go through the PLT
 * and so through these wrappers; GLib's calls to itself do not. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

/* ThreadSanitizer's annotation interface (libtsan) */
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

/* the build hides symbols by default; these must interpose GLib's */
#define WRAPPER __attribute__ ((visibility ("default")))

/* the wrappers are the definitions: no prototypes beyond GLib's */
/* the build hides symbols by default; these must interpose GLib's */
#define WRAPPER __attribute__ ((visibility ("default")))

typedef void (*MutexFunc) (GMutex * mutex);
typedef gboolean (*TryFunc) (GMutex * mutex);
typedef void (*WaitFunc) (GCond * cond, GMutex * mutex);
typedef gboolean (*WaitUntilFunc) (GCond * cond, GMutex * mutex,
    gint64 end_time);
typedef gboolean (*OnceEnterFunc) (volatile void *location);
typedef void (*OnceLeaveFunc) (volatile void *location, gsize result);

/* GLib's own function, found on first use: other libraries' constructors
 * may take a GMutex before this library's would run. Threads that race
 * here all store the same value. */
static void *
find_real (void **slot, const char *name)
{
  void *f = __atomic_load_n (slot, __ATOMIC_RELAXED);

  if (f != NULL)
    return f;
  f = dlsym (RTLD_NEXT, name);
  if (f == NULL) {
    fprintf (stderr, "glib-sync: no %s after the preload\n", name);
    abort ();
  }
  __atomic_store_n (slot, f, __ATOMIC_RELAXED);
  return f;
}

#define REAL(type, name) \
  static void *real_##name##_slot; \
  type real_##name = (type) find_real (&real_##name##_slot, #name)

WRAPPER void
g_mutex_lock (GMutex * mutex)
{
  REAL (MutexFunc, g_mutex_lock);

  real_g_mutex_lock (mutex);
  __tsan_acquire (mutex);
}

WRAPPER gboolean
g_mutex_trylock (GMutex * mutex)
{
  REAL (TryFunc, g_mutex_trylock);
  gboolean taken = real_g_mutex_trylock (mutex);

  if (taken)
    __tsan_acquire (mutex);
  return taken;
}

WRAPPER void
g_mutex_unlock (GMutex * mutex)
{
  REAL (MutexFunc, g_mutex_unlock);

  __tsan_release (mutex);
  real_g_mutex_unlock (mutex);
}

WRAPPER void
g_cond_wait (GCond * cond, GMutex * mutex)
{
  REAL (WaitFunc, g_cond_wait);

  __tsan_release (mutex);
  real_g_cond_wait (cond, mutex);
  __tsan_acquire (mutex);
}

WRAPPER gboolean
g_cond_wait_until (GCond * cond, GMutex * mutex, gint64 end_time)
{
  REAL (WaitUntilFunc, g_cond_wait_until);
  gboolean signalled;

  __tsan_release (mutex);
  signalled = real_g_cond_wait_until (cond, mutex, end_time);
  __tsan_acquire (mutex);
  return signalled;
}

/* g_once_init_enter() is a macro whose fast path is an atomic load in the
 * caller; the store it pairs with is made in g_once_init_leave() */
WRAPPER gboolean (g_once_init_enter) (volatile void *location)
{
  REAL (OnceEnterFunc, g_once_init_enter);
  gboolean first = real_g_once_init_enter (location);

  if (!first)
    __tsan_acquire ((void *) location);
  return first;
}

WRAPPER void (g_once_init_leave) (volatile void *location, gsize result)
{
  REAL (OnceLeaveFunc, g_once_init_leave);

  __tsan_release ((void *) location);
  real_g_once_init_leave (location, result);
}

/* GAsyncQueue locks with a GLib-internal GMutex: a push releases the
 * queue, a pop that gets an item acquires it (GstHarness hands the
 * buffers of the streaming threads to the test this way) */
typedef void (*PushFunc) (GAsyncQueue * queue, gpointer data);
typedef gpointer (*PopFunc) (GAsyncQueue * queue);
typedef gpointer (*TimeoutPopFunc) (GAsyncQueue * queue, guint64 timeout);

WRAPPER void
g_async_queue_push (GAsyncQueue * queue, gpointer data)
{
  REAL (PushFunc, g_async_queue_push);

  __tsan_release (queue);
  real_g_async_queue_push (queue, data);
}

WRAPPER void
g_async_queue_push_unlocked (GAsyncQueue * queue, gpointer data)
{
  REAL (PushFunc, g_async_queue_push_unlocked);

  __tsan_release (queue);
  real_g_async_queue_push_unlocked (queue, data);
}

WRAPPER gpointer
g_async_queue_pop (GAsyncQueue * queue)
{
  REAL (PopFunc, g_async_queue_pop);
  gpointer item = real_g_async_queue_pop (queue);

  __tsan_acquire (queue);
  return item;
}

WRAPPER gpointer
g_async_queue_try_pop (GAsyncQueue * queue)
{
  REAL (PopFunc, g_async_queue_try_pop);
  gpointer item = real_g_async_queue_try_pop (queue);

  if (item != NULL)
    __tsan_acquire (queue);
  return item;
}

WRAPPER gpointer
g_async_queue_timeout_pop (GAsyncQueue * queue, guint64 timeout)
{
  REAL (TimeoutPopFunc, g_async_queue_timeout_pop);
  gpointer item = real_g_async_queue_timeout_pop (queue, timeout);

  if (item != NULL)
    __tsan_acquire (queue);
  return item;
}
