package io.rdmaverbs.verbs.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;

class FuturesTest {

    @Test
    void aStageFailureIsItsCauseAndAnythingElseItself() {
        IllegalStateException failure = new IllegalStateException("ended");
        assertThat(Futures.cause(new CompletionException(failure))).isSameAs(failure);
        assertThat(Futures.cause(failure)).isSameAs(failure);
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(Futures.cause(bare)).isSameAs(bare);
    }

    @Test
    void anUncheckedFailureIsRethrownAsItIsWithWhereItWasWaitedFor() {
        IllegalStateException failure = new IllegalStateException("ended");
        ExecutionException e = fail(failure);
        RuntimeException thrown = Futures.rethrow(e, checked -> new IllegalStateException("not checked"));
        assertThat(thrown).isSameAs(failure);
        assertThat(thrown.getSuppressed()).singleElement()
                .satisfies(s -> assertThat(s).hasMessage("waited for here"));
    }

    @Test
    void anErrorIsThrownAndACheckedFailureGoesThroughTheCallersWrapper() {
        assertThatThrownBy(() -> Futures.rethrow(fail(new OutOfMemoryError("x")), c -> new IllegalStateException()))
                .isInstanceOf(OutOfMemoryError.class);
        IOException io = new IOException("wire");
        RuntimeException wrapped = Futures.rethrow(fail(io), c -> new IllegalStateException("wrapped", c));
        assertThat(wrapped).hasMessage("wrapped").cause().isSameAs(io);
        assertThat(io.getSuppressed()).isEmpty();
    }

    @Test
    void aJoinsFailureIsUnwrappedToo() {
        IllegalArgumentException failure = new IllegalArgumentException("bad");
        Throwable joined = catchThrowable(() -> CompletableFuture.failedFuture(failure).join());
        assertThat(joined).isInstanceOf(CompletionException.class);
        assertThat(Futures.rethrow((CompletionException) joined, c -> new IllegalStateException("not checked")))
                .isSameAs(failure);
    }

    private static ExecutionException fail(Throwable cause) {
        try {
            CompletableFuture.failedFuture(cause).get();
        } catch (ExecutionException e) {
            return e;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the future did not fail");
    }
}
