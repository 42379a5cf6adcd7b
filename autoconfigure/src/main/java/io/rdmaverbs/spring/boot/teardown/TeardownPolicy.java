package io.rdmaverbs.spring.boot.teardown;

import io.rdmaverbs.verbs.ClosePolicy;

/** What the teardown does with resources that are still held once its graceful phase is over. */
public enum TeardownPolicy {

    /**
     * Close what can be closed without breaking anything, leave open what is still held (a lease, a
     * dependent, unacknowledged CQ events) and report it. Nothing is pulled from under a borrower.
     */
    STRICT(ClosePolicy.STRICT),

    /**
     * Close everything, dependents first: acknowledge outstanding CQ events, detach multicast groups,
     * revoke leases. Nothing leaks.
     */
    CASCADE(ClosePolicy.CASCADE);

    private final ClosePolicy closePolicy;

    TeardownPolicy(ClosePolicy closePolicy) {
        this.closePolicy = closePolicy;
    }

    /** The verbs-core policy of the final close. */
    public ClosePolicy closePolicy() {
        return closePolicy;
    }
}
