package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/troubleshooting.md quotes what users will really read: each startup failure's text is what
 * Spring Boot's failure analyzers make of the exception the sample's configuration, with the
 * arguments the page gives, fails with ({@link SampleStartup}); each run-time message is what its example (a hidden
 * {@code <!-- example: ... -->} program, see {@link MarkdownExamples}) throws on the simulated provider.
 *
 * <p>A startup failure is marked {@code <!-- startup-failure: --a=b --c=d -->} before its block; a block
 * of several "description, action" pairs (no headings) is marked {@code <!-- startup-failures: args |
 * args ... -->}, one argument list per pair.
 */
class TroubleshootingExamplesTests {

    private static final Path PAGE = Path.of("..", "docs", "troubleshooting.md");
    private static final Pattern STARTUP = Pattern.compile("^\\s*<!--\\s*startup-failures?:\\s*(.*?)\\s*-->\\s*$");

    @TempDir
    Path work;

    /** A marked startup failure: the argument lists and the quoted block, from page line {@code line}. */
    private record StartupFailure(int line, List<List<String>> arguments, MarkdownExamples.Block quote) {
    }

    @Test
    void everyBlockThePageQuotesIsAStartupFailureOrAnExampleThatIsChecked() throws IOException {
        List<String> lines = Files.readAllLines(PAGE, StandardCharsets.UTF_8);
        List<Integer> startupFailures = startupFailures(lines).stream().map(f -> f.quote().line()).toList();
        MarkdownExamples examples = MarkdownExamples.of(PAGE);
        assertThat(startupFailures).as("page lines of the blocks marked <!-- startup-failure: ... -->").hasSize(18);
        assertThat(examples.unmarkedJava()).isEmpty();
        assertThat(examples.unmarkedOutput()).as("quoted blocks neither a startup failure nor an example produces")
                .extracting(MarkdownExamples.Block::line)
                .allSatisfy(line -> assertThat(startupFailures).as("%s:%d", PAGE.getFileName(), line).contains(line));
    }

    @TestFactory
    Stream<DynamicTest> eachStartupFailureReadsAsThePageQuotesIt() throws IOException {
        List<String> lines = Files.readAllLines(PAGE, StandardCharsets.UTF_8);
        return startupFailures(lines).stream().map(failure -> DynamicTest.dynamicTest(
                PAGE.getFileName() + ":" + failure.line() + " " + failure.arguments(), () -> {
                    List<String> printed = new ArrayList<>();
                    boolean headed = failure.quote().lines().getFirst().equals("Description:");
                    for (List<String> arguments : failure.arguments()) {
                        SampleStartup.Outcome outcome = SampleStartup.analyze(arguments);
                        Assumptions.assumeTrue(outcome.skipped() == null, () -> "the page's capture needs a machine where "
                                + "it applies: " + outcome.skipped());
                        FailureAnalysis analysis = outcome.analysis();
                        if (headed) {
                            printed.addAll(List.of("Description:", analysis.getDescription(), "Action:",
                                    analysis.getAction()));
                        }
                        else {
                            printed.addAll(List.of(analysis.getDescription(), analysis.getAction()));
                        }
                    }
                    assertThat(nonBlankLines(printed)).as("%s:%d", PAGE.getFileName(), failure.quote().line())
                            .isEqualTo(nonBlankLines(failure.quote().lines()));
                }));
    }

    @Test
    void everyRunTimeExampleOnThePageQuotesWhatItThrows() throws IOException {
        List<MarkdownExamples.Program> programs = MarkdownExamples.of(PAGE).programs();
        assertThat(programs).extracting(MarkdownExamples.Program::name).containsExactly("refused-close",
                "xrc-on-soft-roce", "unknown-device", "closed-resource");
        assertThat(programs).allSatisfy(p -> assertThat(p.units()).allSatisfy(u -> assertThat(u.output())
                .as("%s:%d quotes output", p.page(), u.line()).isNotNull()));
    }

    @TestFactory
    Stream<DynamicTest> eachRunTimeExampleThrowsWhatThePageQuotes() throws IOException {
        return MarkdownExamples.of(PAGE).programs().stream().map(program -> DynamicTest.dynamicTest(
                program.page() + ":" + program.line() + " (" + program.name() + ")", () -> {
                    Path dir = Files.createDirectories(work.resolve(program.name()));
                    assertThat(ExampleRun.check(program, dir)).as("problems of example '%s'", program.name()).isEmpty();
                }));
    }

    private static List<StartupFailure> startupFailures(List<String> lines) {
        List<StartupFailure> failures = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher marker = STARTUP.matcher(lines.get(i));
            if (!marker.matches()) {
                continue;
            }
            List<List<String>> arguments = Stream.of(marker.group(1).split("\\|"))
                    .map(list -> List.of(list.strip().split("\\s+")))
                    .toList();
            int open = i + 1;
            while (lines.get(open).isBlank()) {
                open++;
            }
            assertThat(lines.get(open).strip()).as("%s:%d: a fenced block follows the marker", PAGE.getFileName(), i + 1)
                    .isEqualTo("```");
            List<String> quote = new ArrayList<>();
            int j = open + 1;
            while (!lines.get(j).strip().equals("```")) {
                quote.add(lines.get(j++));
            }
            failures.add(new StartupFailure(i + 1, arguments, new MarkdownExamples.Block("", open + 2, quote)));
        }
        return failures;
    }

    private static List<String> nonBlankLines(List<String> text) {
        return text.stream().flatMap(String::lines).map(String::strip).filter(line -> !line.isEmpty()).toList();
    }
}
