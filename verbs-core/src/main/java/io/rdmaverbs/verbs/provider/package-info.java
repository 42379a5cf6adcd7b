/**
 * The low-level provider interface: one method per verb, on opaque handles. Two implementations sit
 * behind it: {@code ffm} (the real libibverbs through {@code java.lang.foreign}) and {@code simulated}
 * (a pure-Java model of the kernel and libibverbs). Providers check that a handle is theirs and still
 * alive, and report failures as {@link io.rdmaverbs.verbs.error.VerbsException}; lifetime rules, leases and
 * thread safety against close are the resource graph's job, one layer up.
 */
@NullMarked
package io.rdmaverbs.verbs.provider;

import org.jspecify.annotations.NullMarked;
