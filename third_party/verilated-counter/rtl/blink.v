// Toggles `led` every DIV clocks: built without --trace, DIV set on the command line.
module blink #(parameter DIV = 2) (
    input clk,
    input reset,
    output reg led
);
    reg [31:0] n;
    always @(posedge clk)
        if (reset) begin
            n <= 32'd0;
            led <= 1'b0;
        end else if (n == DIV - 1) begin
            n <= 32'd0;
            led <= ~led;
        end else
            n <= n + 32'd1;
endmodule
