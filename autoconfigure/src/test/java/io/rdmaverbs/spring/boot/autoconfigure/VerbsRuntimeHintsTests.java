package io.rdmaverbs.spring.boot.autoconfigure;

import io.rdmaverbs.spring.boot.descriptor.LeaseDescriptor;
import io.rdmaverbs.spring.boot.descriptor.ResourceNode;
import io.rdmaverbs.spring.boot.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.teardown.TeardownReport;
import io.rdmaverbs.verbs.ResourceRef;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

class VerbsRuntimeHintsTests {

    @Test
    void descriptorsReachedOnlyThroughObjectTypedDetailsAreRegisteredForJsonBinding() throws Exception {
        RuntimeHints hints = new RuntimeHints();
        new VerbsRuntimeHints().registerHints(hints, getClass().getClassLoader());

        for (Class<?> type : new Class<?>[] { ResourceNode.class, LeaseDescriptor.class, StuckReferenceDescriptor.class,
                ResourceRef.class, TeardownReport.class, TeardownReport.Leftover.class }) {
            assertThat(RuntimeHintsPredicates.reflection().onType(type)).as("%s", type.getSimpleName()).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ResourceNode.class.getMethod("leases")))
                .as("a record accessor Jackson calls").accepts(hints);
    }
}
