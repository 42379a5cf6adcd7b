package io.rdmaverbs.verbs;

/** How a close treats stuck references. */
public enum ClosePolicy {
    /**
     * Refuse when anything would make a release fail, hang or leak, reporting every stuck reference,
     * and touch nothing.
     */
    STRICT,
    /**
     * Clear what holds the resource first: close dependents (children before parents), acknowledge
     * outstanding CQ events, detach multicast groups, revoke leases; then release it.
     */
    CASCADE,
    /**
     * Call the release verb even when the graph predicts {@link StuckReference.Consequence#FAILS}, and let
     * the kernel answer; still refuse what would hang or leak. For checking the graph's predictions
     * against a real device: the exception carries both the prediction and the kernel's errno.
     */
    ATTEMPT
}
