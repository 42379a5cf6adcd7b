/**
 * The low-level provider interface: one interface per group of verbs ({@link
 * io.rdmaverbs.verbs.provider.DeviceVerbs}, {@link io.rdmaverbs.verbs.provider.QueuePairVerbs}, ...), one
 * method per verb, on opaque handles, and {@link io.rdmaverbs.verbs.provider.VerbsProvider} handing out
 * one object per group. It depends only on {@code attr} and {@code error}, never on the resource graph
 * above it. Two implementations sit behind it: {@code ffm} (the real libibverbs through
 * {@code java.lang.foreign}) and {@code simulated} (a pure-Java model of the kernel and libibverbs).
 * Providers check that a handle is theirs and still alive, and report failures as
 * {@link io.rdmaverbs.verbs.error.VerbsException}; lifetime rules, leases and thread safety against close
 * are the resource graph's job, one layer up.
 */
@NullMarked
package io.rdmaverbs.verbs.provider;

import org.jspecify.annotations.NullMarked;
