/**
 * Clockwork's internals shared between its modules: not API, exported only to
 * {@code dev.clockwork.offheap}.
 */
package dev.clockwork.cache.internal;
