package io.rdmaverbs.spring.boot.autoconfigure;

import io.rdmaverbs.spring.boot.descriptor.ClosePlanDescriptor;
import io.rdmaverbs.spring.boot.descriptor.LeaseDescriptor;
import io.rdmaverbs.spring.boot.descriptor.ResourceNode;
import io.rdmaverbs.spring.boot.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.teardown.TeardownReport;
import io.rdmaverbs.verbs.ResourceRef;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs beyond what Spring infers: the descriptors of the resource graph are
 * serialised to JSON from health details and {@code details} maps, whose static type is {@code Object},
 * so no return type leads the AOT engine to them. The FFM downcalls are described by verbs-core's own
 * {@code reachability-metadata.json}.
 */
final class VerbsRuntimeHints implements RuntimeHintsRegistrar {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        bindings.registerReflectionHints(hints.reflection(), ResourceNode.class, LeaseDescriptor.class,
                StuckReferenceDescriptor.class, ClosePlanDescriptor.class, ResourceRef.class, TeardownReport.class);
    }
}
