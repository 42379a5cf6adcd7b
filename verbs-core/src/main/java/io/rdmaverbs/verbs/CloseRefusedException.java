package io.rdmaverbs.verbs;

import java.util.List;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * A close the resource graph refused before calling native code, because the release verb would fail
 * ({@code EBUSY}), hang or leak. Nothing was touched; {@link #stuckReferences()} says what holds the
 * resource, and {@link #plan()} what a close would have done.
 *
 * <p>{@link #errno()} is always {@code EBUSY}: what the kernel answers for the refusals that would
 * fail, and the closest errno for "still in use" where the verb would instead hang (unacknowledged CQ
 * events) or leak (a device context with children), which have no errno of their own. Each stuck
 * reference carries the real consequence ({@link StuckReference#consequence()}) and, where there is
 * one, the errno the verb would return.
 */
public final class CloseRefusedException extends VerbsException {

    private final transient ClosePlan plan;

    CloseRefusedException(String verb, ResourceRef resource, ClosePlan plan) {
        super(verb, resource.toString(), Errno.EBUSY, message(plan));
        this.plan = plan;
    }

    public ClosePlan plan() {
        return plan;
    }

    public List<StuckReference> stuckReferences() {
        return plan.blockers();
    }

    private static String message(ClosePlan plan) {
        StringBuilder sb = new StringBuilder("refused before the native call (nothing was released): ");
        List<StuckReference> blockers = plan.blockers();
        for (int i = 0; i < blockers.size(); i++) {
            sb.append(i == 0 ? "" : "; ").append(blockers.get(i).message());
        }
        return sb.append(". Release those first, or close with ClosePolicy.CASCADE.").toString();
    }
}
