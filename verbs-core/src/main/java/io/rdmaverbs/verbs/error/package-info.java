/**
 * How a verb fails: {@link io.rdmaverbs.verbs.error.VerbsException}, naming the verb, the resource and
 * the {@link io.rdmaverbs.verbs.error.Errno} the kernel or libibverbs answered.
 *
 * <p>This package sits below both the resource graph ({@code io.rdmaverbs.verbs}) and the providers
 * ({@code io.rdmaverbs.verbs.provider}): a provider raises these exceptions and the graph re-raises them
 * about its resources, so neither has to depend on the other to report a failure. It depends on
 * nothing of the project.
 */
@NullMarked
package io.rdmaverbs.verbs.error;

import org.jspecify.annotations.NullMarked;
