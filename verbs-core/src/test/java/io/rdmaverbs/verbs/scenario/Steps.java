package io.rdmaverbs.verbs.scenario;

import java.util.ArrayList;
import java.util.List;

import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The record of a scenario's observable steps: each step's label and its outcome ({@code ok}, the
 * errno name a verb failed with, {@code refused} for a close the graph refused before native code,
 * or the Java exception a bad argument got). Two runs of a scenario, on the kernel and on the
 * simulated provider, must produce the same record: the differential check compares them.
 */
public final class Steps {

    /** One step: what was done and what came of it. */
    public record Outcome(String label, String result) {
        @Override
        public String toString() {
            return label + " -> " + result;
        }
    }

    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    @FunctionalInterface
    public interface Producer<T> {
        T get() throws Exception;
    }

    private final List<Outcome> outcomes = new ArrayList<>();

    public List<Outcome> outcomes() {
        return List.copyOf(outcomes);
    }

    /**
     * A step whose outcome is something observed rather than a verb's return: a CM event's type and
     * status, say, or that nothing came. Both runs of a differential check must observe the same.
     */
    public void observed(String label, String result) {
        outcomes.add(new Outcome(label, result));
    }

    /** A step that must succeed, producing a value. */
    public <T> T make(String label, Producer<T> step) throws Exception {
        try {
            T value = step.get();
            outcomes.add(new Outcome(label, "ok"));
            return value;
        } catch (Exception | AssertionError e) {
            outcomes.add(new Outcome(label, resultOf(e)));
            throw e;
        }
    }

    /** A step that must succeed. */
    public void ok(String label, Action step) throws Exception {
        make(label, () -> {
            step.run();
            return null;
        });
    }

    /** A step whose verb must fail natively with {@code expected}. */
    public VerbsException fails(String label, Errno expected, Action step) {
        Throwable thrown = run(label, step);
        assertThat(thrown).as("%s: expected the verb to fail with %s", label, expected.name())
                .isInstanceOf(VerbsException.class)
                .isNotInstanceOf(CloseRefusedException.class);
        VerbsException e = (VerbsException) thrown;
        assertThat(e.errno()).as("%s: errno (message: %s)", label, e.getMessage()).isEqualTo(expected);
        return e;
    }

    /** A close the resource graph must refuse before any native call. */
    public CloseRefusedException refused(String label, Action step) {
        Throwable thrown = run(label, step);
        assertThat(thrown).as("%s: expected the graph to refuse", label).isInstanceOf(CloseRefusedException.class);
        return (CloseRefusedException) thrown;
    }

    /** A step that must be rejected in Java, before native code, with {@code type}. */
    public <E extends Throwable> E rejected(String label, Class<E> type, Action step) {
        Throwable thrown = run(label, step);
        assertThat(thrown).as("%s: expected %s", label, type.getSimpleName()).isInstanceOf(type);
        return type.cast(thrown);
    }

    private Throwable run(String label, Action step) {
        try {
            step.run();
        } catch (Exception | AssertionError e) {
            outcomes.add(new Outcome(label, resultOf(e)));
            return e;
        }
        outcomes.add(new Outcome(label, "ok"));
        throw new AssertionError(label + ": expected a failure, but the step succeeded");
    }

    static String resultOf(@Nullable Throwable e) {
        if (e == null) {
            return "ok";
        }
        if (e instanceof CloseRefusedException) {
            return "refused";
        }
        if (e instanceof VerbsException v) {
            return v.errno() == null ? "failed" : v.errno().name();
        }
        return e.getClass().getSimpleName();
    }
}
