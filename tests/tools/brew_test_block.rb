# Runs the `test do` block of a Homebrew formula against a perfdiff built
# here, without Homebrew: the formula's class methods are recorded and
# ignored, and the few helpers a test block calls (testpath, bin,
# shell_output, assert_match) are given as Homebrew defines them.
# usage: ruby brew_test_block.rb FORMULA.rb BINDIR
require "open3"
require "pathname"
require "tmpdir"

class Formula
  class << self
    attr_reader :test_block

    def test(&block)
      @test_block = block
    end

    def on_linux
      yield
    end

    def on_macos; end

    # desc, homepage, head, url, depends_on, uses_from_macos, ...
    def method_missing(*) end

    def respond_to_missing?(*) = true
  end

  attr_reader :testpath

  def initialize(bin, testpath)
    @bin = Pathname(bin)
    @testpath = Pathname(testpath)
  end

  def bin = @bin

  # The command's output (stderr too), failing unless it exits with result.
  def shell_output(cmd, result = 0)
    out, status = Open3.capture2e(cmd, chdir: @testpath.to_s)
    return out if status.exitstatus == result

    raise "#{cmd}: exit #{status.exitstatus}, want #{result}\n#{out}"
  end

  def assert_match(want, got)
    ok = want.is_a?(Regexp) ? want.match?(got) : got.include?(want)
    raise "#{want.inspect} not found in:\n#{got}" unless ok
  end
end

formula, bindir = ARGV
load formula
klass = Object.const_get(File.basename(formula, ".rb").capitalize)
abort "#{formula}: no test block" unless klass.test_block
Dir.mktmpdir do |dir|
  klass.new(bindir, dir).instance_eval(&klass.test_block)
end
puts "test block passed"
