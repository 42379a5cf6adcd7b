package io.rdmaverbs.verbs;

import java.util.List;

/**
 * A close the resource graph refused before calling native code, because the release verb would fail
 * ({@code EBUSY}), hang or leak. Nothing was touched; {@link #stuckReferences()} says what holds the
 * resource, and {@link #plan()} what a close would have done.
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
