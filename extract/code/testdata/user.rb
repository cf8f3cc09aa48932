# frozen_string_literal: true

# Models.
module Models
  MAX = 10

  # A user.
  class User < Base
    attr_reader :email

    # Creates a user.
    def initialize(email)
      @email = email
    end

    def self.find(id)
      new("#{id}@example.com")
    end

    # Saves.
    def save
      true
    end
  end

  class Admin::Role
    def grant; end
  end
end

def helper
  42
end
