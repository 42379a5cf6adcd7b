package io.rdmaverbs.spring.boot.descriptor;

import java.util.List;

import io.rdmaverbs.verbs.Lease;

/**
 * A lease, for JSON: who holds it, since when, and where it was taken.
 *
 * @param holder the holder, as the borrower described itself
 * @param thread the thread that took it
 * @param since when it was taken (ISO-8601)
 * @param heldForMillis how long it has been held
 * @param stack the first frames of the stack that took it, innermost first
 */
public record LeaseDescriptor(String holder, String thread, String since, long heldForMillis, List<String> stack) {

    /** How many frames of a lease's stack are shown. */
    public static final int STACK_FRAMES = 8;

    public static LeaseDescriptor of(Lease lease) {
        return new LeaseDescriptor(lease.holder(), lease.thread(), lease.since().toString(),
                lease.heldFor().toMillis(),
                lease.stack().stream().limit(STACK_FRAMES).map(StackTraceElement::toString).toList());
    }
}
